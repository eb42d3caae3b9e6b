// Types the alerts feature's commands, actions and blocks share.
import type { DeadLetterDesk } from '../../webhooks/index.js';
import type { ApprovalSlackDeps } from '../types.js';

export interface DeadLetterSlackDeps {
  desk: DeadLetterDesk;
  approvals: ApprovalSlackDeps;
}
