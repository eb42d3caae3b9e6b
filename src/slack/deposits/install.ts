// The deposit quote's views as the start-up wiring lists them.
import type { Installed } from '../runtime/installed.js';
import { type ReadViewDeps, registerDepositQuoteViews } from './views.js';

export function installDepositViews(deps: ReadViewDeps): Installed {
  return { listeners: (app) => registerDepositQuoteViews(app, deps) };
}
