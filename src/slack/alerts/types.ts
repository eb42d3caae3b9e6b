// Types the alerts feature's commands, actions and blocks share.
import type { AlertRecord, DeadLetterDesk } from '../../webhooks/index.js';
import type { ApprovalSlackDeps } from '../types.js';

export interface DeadLetterSlackDeps {
  desk: DeadLetterDesk;
  approvals: ApprovalSlackDeps;
}

/** An alert's place as `/cngn tx` shows it; `permalink` when Slack gave one for its message. */
export interface AlertWhereabouts {
  event: string;
  state: 'posted' | 'waiting' | 'set-aside';
  channel?: string;
  ts?: string;
  digestPart?: number;
  permalink?: string;
  /** What the event said (webhooks/index.ts AlertRecord), for when the service cannot answer. */
  recorded?: AlertRecord;
}
