// Types the approvals feature's Slack side shares: what the wiring gives it, and what its commands,
// actions, views and blocks pass between them.
import type { ApprovalEngine } from '../../approvals/index.js';
import type { CngnApi } from '../../cngn/api.js';
import type { Logger } from '../../log.js';
import type { Store } from '../../store/index.js';
import type { Deliveries } from '../runtime/deliveries.js';

export interface ApprovalSlackDeps {
  engine: ApprovalEngine;
  /** Where the Slack side keeps its own records (what a modal showed, deliveries). */
  store: Store;
  api: CngnApi;
  approvalsChannel: string;
  /** `SANDBOX`, `TEST` or `LIVE`: shown on every modal and list. */
  environmentLabel: string;
  /** Each delivery of a submission or command acts once, across replicas. */
  deliveries: Deliveries;
  now?: () => Date;
  log?: Pick<Logger, 'warn'> & Partial<Pick<Logger, 'error'>>;
  /** Why someone cannot be a delegate (a guest, a bot, deactivated, of another workspace); throws when Slack cannot say. */
  delegates?: { problem(user: string): Promise<string | undefined> };
  /** Whether Slack describes someone as able to act here (no guest, bot, deactivated or external account). */
  mayAct?: (user: string) => Promise<boolean>;
}

export interface BankChoice {
  name: string;
  code: string;
}

export interface Click {
  user: string;
  channel: string | undefined;
  value: string;
  triggerId: string | undefined;
}
