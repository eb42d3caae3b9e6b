// Bolt runs every listener's matching steps on every request: each listener gets its own copy of the
// request's arguments and promises at every step, so some twenty-five listeners cost most of what an
// ack allocates (and then collects). Listeners registered by a plain id (an action_id, a view's
// callback_id, a type-ahead's action_id, an event type) are kept here in a table instead, and one
// global middleware, the last of the chain (after the access gate and every other one), finds the
// id's own listeners in it; the features still call `app.action(id, …)` as usual. Anything else (a
// pattern, constraints, listener middleware, a command) goes to Bolt as it came, and Bolt matches
// only those: a command meets one listener, not one more per kind of table.
import { type AllMiddlewareArgs, type AnyMiddlewareArgs, type App, MultipleListenerError } from '@slack/bolt';

type Args = AnyMiddlewareArgs & AllMiddlewareArgs;
type Listener = (args: Args) => Promise<void>;
export type Kind = 'action' | 'view' | 'options' | 'event';

const KINDS: readonly Kind[] = ['action', 'view', 'options', 'event'];

/**
 * The kind and id of a request, as Bolt matched a plain-id listener of each kind: a block's action
 * (`block_actions`), a view's submission (`view_submission`), a block's type-ahead
 * (`block_suggestion`), an event of any type. Undefined for anything else (a command, a shortcut).
 */
function kindAndId(args: Args): { kind: Kind; id: unknown } | undefined {
  const { body, payload } = args as unknown as {
    body: Record<string, unknown> | undefined;
    payload: Record<string, unknown> | undefined;
  };
  const type = body?.type;
  if ('action' in args && args.action && type === 'block_actions') {
    return { kind: 'action', id: payload?.action_id };
  }
  if ('view' in args && type === 'view_submission') {
    return { kind: 'view', id: (body?.view as { callback_id?: unknown } | undefined)?.callback_id };
  }
  if ('options' in args && args.options && type === 'block_suggestion') {
    return { kind: 'options', id: payload?.action_id };
  }
  if ('event' in args && args.event !== undefined) return { kind: 'event', id: payload?.type };
  return undefined;
}

/** The reasons of the failed, one error as Bolt gives it (one alone, else a MultipleListenerError). */
function failureOf(settled: readonly PromiseSettledResult<unknown>[]): unknown {
  const reasons = settled.flatMap((s) =>
    s.status === 'fulfilled'
      ? []
      : s.reason instanceof MultipleListenerError
        ? s.reason.originals
        : [s.reason],
  );
  if (reasons.length === 0) return undefined;
  return reasons.length === 1 ? reasons[0] : new MultipleListenerError(reasons);
}

/**
 * The table's dispatch, a global middleware: the id's listeners run beside Bolt's own (`next`), each
 * with the arguments Bolt gives a listener, and their failures reach Bolt's error handler as
 * listeners' do (one error, or a MultipleListenerError).
 */
function dispatcher(tables: Map<Kind, Map<string, Listener[]>>) {
  return async (args: Args): Promise<void> => {
    const found = kindAndId(args);
    const listeners =
      found && typeof found.id === 'string' ? tables.get(found.kind)?.get(found.id) : undefined;
    if (!listeners) return args.next();
    const listenerArgs = { ...args, next: async () => {} } as Args;
    const settled = await Promise.allSettled([
      ...listeners.map((listener) => listener(listenerArgs)),
      args.next(),
    ]);
    const failure = failureOf(settled);
    if (failure !== undefined) throw failure;
  };
}

const indexes = new WeakMap<App, Map<Kind, Map<string, Listener[]>>>();

/** The ids listened to through the table of `app`, by kind (what the access table must declare). */
export function indexedIds(app: App): Array<{ kind: Kind; id: string }> {
  return [...(indexes.get(app) ?? new Map<Kind, Map<string, Listener[]>>())].flatMap(([kind, table]) =>
    [...table.keys()].map((id) => ({ kind, id })),
  );
}

/**
 * Runs `register` with the app as the features see it (`action`, `view`, `options` and `event` with a
 * plain id and one listener go into the table; everything else is the app's own), then puts the
 * table's dispatch after every global middleware registered so far, the access gate's included; a
 * later `app.use` throws.
 */
export function withListenerIndex(app: App, register: (indexed: App) => void): void {
  const tables = new Map<Kind, Map<string, Listener[]>>();
  indexes.set(app, tables);
  const tableOf = (kind: Kind): Map<string, Listener[]> => {
    const table = tables.get(kind) ?? new Map<string, Listener[]>();
    tables.set(kind, table);
    return table;
  };
  const registerListener =
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
  register(
    new Proxy(app, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver) as unknown;
        if (typeof value !== 'function') return value;
        const own = (value as (...args: unknown[]) => unknown).bind(target);
        return KINDS.includes(property as Kind) ? registerListener(property as Kind, own) : own;
      },
    }),
  );
  if (tables.size === 0) return;
  app.use(dispatcher(tables) as never);
  closeUse(app);
}

/**
 * The dispatch must stay the last global middleware: one added after it would run after the table's
 * listeners (a gate there would refuse too late). So `app.use` refuses from now on, loudly, at start-up.
 */
function closeUse(app: App): void {
  Object.defineProperty(app, 'use', {
    configurable: true,
    value: () => {
      throw new Error(
        'a global middleware must be registered before the listener table (withListenerIndex): ' +
          'it would otherwise run after the listeners it is meant to guard',
      );
    },
  });
}
