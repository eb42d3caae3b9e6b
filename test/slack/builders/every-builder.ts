// Every builder of a Slack message, view or text, with every value that comes from a person, the
// service or a webhook set to one text: what the outside-text tests run their checks over. Builders in
// src/slack/blocks/, the views' notices, the webhook alerts and digests, and the alert fallback; each
// group of builders is in a file of this folder.
import { alertLookupBuilders, deadLetterBuilders, webhookAlertBuilders } from './alerts.js';
import { approvalBuilders, approvalFollowUpBuilders } from './approvals.js';
import { auditBuilders } from './audit.js';
import { bankOptionBuilders, depositFormBuilders, requestFormBuilders } from './forms.js';
import type { Add, Built } from './inputs.js';
import { readBuilders } from './reads.js';

export { fallbackAlert } from './alerts.js';
export type { Built } from './inputs.js';

/** Every builder, every outside field set to `text`. */
export function everyBuilder(text: string): Built[] {
  const out: Built[] = [];
  const add: Add = (name, built) => out.push({ name, built });
  approvalBuilders(text, add);
  auditBuilders(text, add);
  deadLetterBuilders(text, add);
  requestFormBuilders(text, add);
  readBuilders(text, add);
  depositFormBuilders(text, add);
  webhookAlertBuilders(text, add);
  approvalFollowUpBuilders(text, add);
  bankOptionBuilders(text, add);
  alertLookupBuilders(text, add);
  return out;
}
