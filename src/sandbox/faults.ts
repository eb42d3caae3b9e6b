// Fault injection for tests: answer an error without processing, cut the connection without
// processing, hold a request until released, or process a request and never answer (outcome unknown).

interface FailRule {
  kind: 'fail';
  status: number;
  message: string;
  headers: Record<string, string>;
  remaining: number;
}

interface ResetRule {
  kind: 'reset';
  remaining: number;
}

interface HoldRule {
  kind: 'hold';
  released: Promise<void>;
  onArrive: () => void;
}

interface DropRule {
  kind: 'drop';
}

type Rule = (FailRule | ResetRule | HoldRule | DropRule) & { method: string; pathPrefix: string };

export class Faults {
  private rules: Rule[] = [];
  private readonly releases = new Set<() => void>();

  failNext(
    method: string,
    pathPrefix: string,
    status: number,
    times = 1,
    message?: string,
    headers: Record<string, string> = {},
  ): void {
    this.rules.push({
      kind: 'fail',
      method: method.toUpperCase(),
      pathPrefix,
      status,
      message: message ?? defaultMessage(status),
      headers,
      remaining: times,
    });
  }

  resetNext(method: string, pathPrefix: string, times = 1): void {
    this.rules.push({ kind: 'reset', method: method.toUpperCase(), pathPrefix, remaining: times });
  }

  hold(method: string, pathPrefix: string): { release(): void; arrived: Promise<void> } {
    let release!: () => void;
    let onArrive!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const arrived = new Promise<void>((resolve) => {
      onArrive = resolve;
    });
    this.rules.push({ kind: 'hold', method: method.toUpperCase(), pathPrefix, released, onArrive });
    this.releases.add(release);
    return { release, arrived };
  }

  dropResponse(method: string, pathPrefix: string): void {
    this.rules.push({ kind: 'drop', method: method.toUpperCase(), pathPrefix });
  }

  /** Take the first rule matching this request (one-shot; `fail` counts down its `times`). */
  take(method: string, path: string, kind: Rule['kind']): Rule | undefined {
    const index = this.rules.findIndex(
      (rule) =>
        rule.kind === kind && rule.method === method.toUpperCase() && path.startsWith(rule.pathPrefix),
    );
    if (index < 0) return undefined;
    const rule = this.rules[index] as Rule;
    if ((rule.kind === 'fail' || rule.kind === 'reset') && rule.remaining > 1) {
      rule.remaining -= 1;
      return rule;
    }
    this.rules.splice(index, 1);
    return rule;
  }

  /** Release every hold (on stop, so no request hangs forever). */
  releaseAll(): void {
    for (const release of this.releases) release();
    this.releases.clear();
    this.rules = [];
  }
}

function defaultMessage(status: number): string {
  if (status === 429) return 'Too many requests. Please try again later.';
  if (status >= 500) return 'Internal server error';
  return 'Request failed';
}
