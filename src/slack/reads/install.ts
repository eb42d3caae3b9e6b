// The transaction pages' buttons as the start-up wiring lists them (right after /cngn).
import type { Installed } from '../runtime/installed.js';
import { registerTxPages } from './tx-pages.js';

export function installTxPages(deps: Parameters<typeof registerTxPages>[1]): Installed {
  return { listeners: (app) => registerTxPages(app, deps) };
}
