// Bolt runs every listener's matching steps on every request: each listener gets its own copy of the
// request's arguments and promises at every step, so some twenty-five listeners cost most of what an
// ack allocates (and then collects). Listeners registered by a plain id (an action_id, a view's
// callback_id, a type-ahead's action_id, an event type) are kept here in a table instead, and Bolt
// gets one listener per kind that finds the id's own listeners in it; the features still call
// `app.action(id, …)` as usual. Anything else (a pattern, constraints, listener middleware, a
// command) goes to Bolt as it came.
import { type AllMiddlewareArgs, type AnyMiddlewareArgs, type App, MultipleListenerError } from '@slack/bolt';

type Listener = (args: AnyMiddlewareArgs & AllMiddlewareArgs) => Promise<void>;
export type Kind = 'action' | 'view' | 'options' | 'event';

const KINDS: readonly Kind[] = ['action', 'view', 'options', 'event'];

/** The id Bolt would have matched a plain-id listener of this kind against. */
function idOf(kind: Kind, args: AnyMiddlewareArgs): string | undefined {
  const value = (() => {
    const { body, payload } = args as { body: Record<string, unknown>; payload: Record<string, unknown> };
    switch (kind) {
      case 'action':
      case 'options':
        return payload?.action_id;
      case 'view':
        return (body?.view as { callback_id?: unknown } | undefined)?.callback_id;
      case 'event':
        return payload?.type;
    }
  })();
  return typeof value === 'string' ? value : undefined;
}

/** Every listener of the id, together, failing as Bolt does when one or several of them throw. */
async function runAll(listeners: readonly Listener[], args: Parameters<Listener>[0]): Promise<void> {
  if (listeners.length === 1) return listeners[0]?.(args);
  const settled = await Promise.allSettled(listeners.map((listener) => listener(args)));
  const failed = settled.filter((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed.length === 1) throw failed[0]?.reason;
  if (failed.length > 1) throw new MultipleListenerError(failed.map((f) => f.reason));
}

/**
 * What Bolt is asked to match for each kind, standing for any plain id: the same surface as its own
 * constraint for an id (a view's id means a submission; an action or type-ahead id a block's).
 */
function registerKind(app: App, kind: Kind, dispatch: Listener): void {
  const listener = dispatch as never;
  switch (kind) {
    case 'action':
      app.action({ type: 'block_actions' }, listener);
      return;
    case 'view':
      app.view({ type: 'view_submission' }, listener);
      return;
    case 'options':
      app.options({ type: 'block_suggestion' }, listener);
      return;
    case 'event':
      app.event(/^/, listener);
      return;
  }
}

const indexes = new WeakMap<App, Map<Kind, Map<string, Listener[]>>>();

/** The ids listened to through the table of `app`, by kind (what the access table must declare). */
export function indexedIds(app: App): Array<{ kind: Kind; id: string }> {
  return [...(indexes.get(app) ?? new Map<Kind, Map<string, Listener[]>>())].flatMap(([kind, table]) =>
    [...table.keys()].map((id) => ({ kind, id })),
  );
}

/**
 * The app as the features see it: `action`, `view`, `options` and `event` with a plain id and one
 * listener go into the table; everything else is the app's own.
 */
export function indexedListeners(app: App): App {
  const tables = new Map<Kind, Map<string, Listener[]>>();
  indexes.set(app, tables);
  const tableOf = (kind: Kind): Map<string, Listener[]> => {
    let table = tables.get(kind);
    if (!table) {
      const made = new Map<string, Listener[]>();
      table = made;
      tables.set(kind, made);
      registerKind(app, kind, async (args) => {
        const id = idOf(kind, args);
        const listeners = id === undefined ? undefined : made.get(id);
        if (listeners) await runAll(listeners, args);
      });
    }
    return table;
  };
  const register =
    (kind: Kind, own: (...args: unknown[]) => unknown) =>
    (...args: unknown[]): unknown => {
      const [id, listener, ...more] = args;
      if (typeof id !== 'string' || typeof listener !== 'function' || more.length > 0) return own(...args);
      // Bolt refuses these event names at registration; so does the table, through Bolt.
      if (kind === 'event' && id.startsWith('message')) return own(...args);
      const table = tableOf(kind);
      table.set(id, [...(table.get(id) ?? []), listener as Listener]);
      return undefined;
    };
  return new Proxy(app, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof value !== 'function') return value;
      const own = (value as (...args: unknown[]) => unknown).bind(target);
      return KINDS.includes(property as Kind) ? register(property as Kind, own) : own;
    },
  });
}
