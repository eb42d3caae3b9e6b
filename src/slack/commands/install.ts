// /cngn as the start-up wiring lists it: the command router, with the report client made from the app
// and its own record of deliveries (each /cngn runs once, across replicas).

import type { Store } from '../../store/index.js';
import { reportClient } from '../reports/delivery.js';
import { Deliveries } from '../runtime/deliveries.js';
import type { Installed } from '../runtime/installed.js';
import type { ReportDeps } from '../types.js';
import { type RouterDeps, registerCommands } from './router.js';

export interface CommandsInstall extends Omit<RouterDeps, 'reports' | 'deliveries'> {
  store: Store;
  /** Unset: reports are off. The client is made from the app. */
  reports?: Omit<ReportDeps, 'client'> | undefined;
}

export function installCommands(deps: CommandsInstall): Installed {
  const { store, ...router } = deps;
  return {
    listeners: (app) =>
      registerCommands(app, {
        ...router,
        reports: router.reports && { ...router.reports, client: reportClient(app) },
        deliveries: new Deliveries(store),
      }),
  };
}
