// What every part of the approvals feature's Slack side is given by the wiring.
import type { ApprovalEngine } from '../../approvals/index.js';
import type { CngnApi } from '../../cngn/api.js';
import type { Logger } from '../../log.js';
import type { Deliveries } from '../runtime/deliveries.js';

export interface ApprovalSlackDeps {
  engine: ApprovalEngine;
  api: CngnApi;
  approvalsChannel: string;
  /** `SANDBOX`, `TEST` or `LIVE`: shown on every modal and list. */
  environmentLabel: string;
  /** Each delivery of a submission or command acts once, across replicas. */
  deliveries: Deliveries;
  now?: () => Date;
  log?: Pick<Logger, 'warn'> & Partial<Pick<Logger, 'error'>>;
}
