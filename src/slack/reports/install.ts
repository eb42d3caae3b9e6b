// The scheduled report as the start-up wiring lists it: made once the app exists (it posts through a
// client made from it), started by the wiring once the bot runs, stopped with the bot.
import type { Installed } from '../runtime/installed.js';
import { reportClient } from './delivery.js';
import { ScheduledReports, type ScheduledReportsOptions } from './scheduled.js';

export interface ScheduledReportsInstall extends Installed {
  /** Set once the app exists; undefined without Slack or without a schedule. */
  scheduled(): ScheduledReports | undefined;
}

export function installScheduledReports(
  options: Omit<ScheduledReportsOptions, 'client'> | undefined,
): ScheduledReportsInstall {
  let scheduled: ScheduledReports | undefined;
  return {
    scheduled: () => scheduled,
    listeners: (app) => {
      if (options) scheduled = new ScheduledReports({ ...options, client: reportClient(app) });
    },
    stop: () => scheduled?.stop(),
  };
}
