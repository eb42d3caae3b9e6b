// What the stop lookup's tests share: the engine's core with its first notice refused, as a store that
// failed that one write leaves it, the notices after it written as usual.
import type { CoreSections } from '../../src/approvals/core-sections.js';

/** `core` whose first `notice` fails with the store unavailable; `notices()`, how many were asked for. */
export function firstNoticeRefused(core: CoreSections): { core: CoreSections; notices: () => number } {
  let notices = 0;
  const refusing = new Proxy(core, {
    get: (target, property) => {
      const value: unknown = Reflect.get(target, property, target);
      if (property !== 'notice' || typeof value !== 'function') {
        return typeof value === 'function' ? value.bind(target) : value;
      }
      return (...args: unknown[]) => {
        notices += 1;
        return notices === 1 ? Promise.reject(new Error('store unavailable')) : value.apply(target, args);
      };
    },
  });
  return { core: refusing, notices: () => notices };
}
