// The audit trail's news, as the start-up wiring lists it: a break, a policy change, an export a crash
// left undelivered.
import type { App } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { ApprovalEngine } from '../../approvals/index.js';
import type { Installed } from '../runtime/installed.js';
import { auditAlarmMessage, undeliveredExportNotice } from './blocks.js';
import { policyChangedMessage } from './policy-blocks.js';

export interface AuditNoticesDeps {
  engine: Pick<ApprovalEngine, 'onAuditAlarm' | 'onPolicyRecorded' | 'onUndeliveredAuditExport'>;
  /** The client approval messages are presented through. */
  client: (app: App) => WebClient;
  approvalsChannel: string;
  environmentLabel: string;
}

export function installAuditNotices(deps: AuditNoticesDeps): Installed {
  return {
    listeners: (app) =>
      tellAuditNews(deps.engine, deps.client(app), deps.approvalsChannel, deps.environmentLabel),
  };
}

function tellAuditNews(
  engine: AuditNoticesDeps['engine'],
  client: WebClient,
  channel: string,
  label: string,
): void {
  // A break in the audit trail (found at start, daily, or by an append) is told in the approvals channel.
  engine.onAuditAlarm(async (check, incidents) => {
    await client.chat.postMessage({ channel, ...auditAlarmMessage(check, incidents, label) });
  });
  // A policy change, once in the audit chain, is told in the approvals channel.
  engine.onPolicyRecorded(async (entry) => {
    await client.chat.postMessage({ channel, ...policyChangedMessage(entry, label) });
  });
  // An audit export a crash interrupted: the asker hears, by DM, that it was not delivered.
  engine.onUndeliveredAuditExport(async (record) => {
    await client.chat.postMessage({ channel: record.actor, ...undeliveredExportNotice(record, label) });
  });
}
