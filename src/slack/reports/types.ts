// What the report's command and schedule are given: where a report comes from and how its delivery
// is run after the ack.
import type { WebClient } from '@slack/web-api';
import type { Logger } from '../../log.js';
import type { ReportSource } from '../../reports/types.js';
import type { InFlight } from '../runtime/in-flight.js';

export interface ReportDeps {
  source: ReportSource;
  now: () => Date;
  logger: Logger;
  /** Posts the report's parts, with Slack's own retries off (reportClient in delivery.ts). */
  client: WebClient;
  /** Delivery runs after the ack, here, so shutdown lets it finish. */
  inFlight?: InFlight | undefined;
  /** Fired when the bot stops: a report build under way stops reading and its DM says it failed. */
  stopping?: AbortSignal | undefined;
}
