// What the report's command and schedule are given: where a report comes from and how its delivery
// is run after the ack.
import type { Logger } from '../../log.js';
import type { ReportSource } from '../../reports/types.js';
import type { InFlight } from '../runtime/in-flight.js';

export interface ReportDeps {
  source: ReportSource;
  now: () => Date;
  logger: Logger;
  /** Delivery runs after the ack, here, so shutdown lets it finish. */
  inFlight?: InFlight | undefined;
}
