// Bolt runs every listener's middleware for every request, each step with its own copy of the
// request's arguments: with a listener per button and per modal, a /cngn command paid for twenty
// listeners that were not its own before its ack. Features still register with `app.action(id, …)`,
// `app.view(id, …)` and `app.options(id, …)`; those with a plain id are gathered here and bound to Bolt
// as one listener per kind, which finds the handler by id. Anything else (a RegExp, constraints, more
// than one listener, an id used twice) goes to Bolt as it came.
import type { App } from '@slack/bolt';

type Kind = 'action' | 'view' | 'options';
// biome-ignore lint/suspicious/noExplicitAny: Bolt's listener arguments differ by kind; the handler gets them unchanged
type Handler = (args: any) => Promise<void> | void;

/** The id a request of this kind is routed by, as Bolt's own constraint would read it. */
const idOf: Record<
  Kind,
  (args: { payload?: { action_id?: unknown }; body?: { view?: { callback_id?: unknown } } }) => unknown
> = {
  action: (args) => args.payload?.action_id,
  options: (args) => args.payload?.action_id,
  view: (args) => args.body?.view?.callback_id,
};

const literally = (id: string) => id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export interface FoldedApp {
  /** The app to hand to features: same API, with plain-id listeners gathered. */
  app: App;
  /** Binds what was gathered to Bolt (once, after every feature registered). */
  bind(): void;
}

export function foldListeners(app: App): FoldedApp {
  const handlers: Record<Kind, Map<string, Handler>> = {
    action: new Map(),
    view: new Map(),
    options: new Map(),
  };
  const gather =
    (kind: Kind) =>
    (constraint: unknown, ...listeners: Handler[]): void => {
      const [only] = listeners;
      if (
        typeof constraint === 'string' &&
        listeners.length === 1 &&
        only &&
        !handlers[kind].has(constraint)
      ) {
        handlers[kind].set(constraint, only);
        return;
      }
      (app[kind] as (c: unknown, ...l: Handler[]) => void).call(app, constraint, ...listeners);
    };
  const folded = { action: gather('action'), view: gather('view'), options: gather('options') };
  const facade = new Proxy(app, {
    get(target, prop) {
      if (prop === 'action' || prop === 'view' || prop === 'options') return folded[prop];
      const value = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return {
    app: facade,
    bind() {
      for (const kind of ['action', 'view', 'options'] as const) {
        const byId = handlers[kind];
        if (byId.size === 0) continue;
        // The same set of ids as Bolt would have matched one by one (`app.view(id)` = submissions only).
        const ids = new RegExp(`^(?:${[...byId.keys()].map(literally).join('|')})$`);
        (app[kind] as (c: RegExp, l: Handler) => void).call(app, ids, async (args: unknown) => {
          const id = idOf[kind](args as Parameters<(typeof idOf)[Kind]>[0]);
          const handler = typeof id === 'string' ? byId.get(id) : undefined;
          if (handler) await handler(args);
        });
      }
    },
  };
}
