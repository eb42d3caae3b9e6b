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
import { slackTexts } from './support.js';

export { fallbackAlert } from './alerts.js';
export type { Built } from './inputs.js';

/** Every builder, every outside field set to `text`. */
export function everyBuilder(text: string): Built[] {
  const out: Built[] = [];
  forEveryBuilder(text, (name, built) => out.push({ name, built }));
  return out;
}

/**
 * Every builder, every outside field set to `text`, each output handed to `add` as it is built: for a
 * check that need not hold all of them (some ten thousand messages, each holding the text many times).
 */
export function forEveryBuilder(text: string, add: Add): void {
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
}

/** One text a builder hands Slack, with the builder's name. */
export interface BuiltText {
  name: string;
  text: string;
}

/**
 * The texts the builders hand Slack, as slackTexts reads them, each pair of builder name and text once:
 * the builders return far fewer distinct texts than outputs (states, explorers and reasons that do not
 * change a text), so the checks read each once.
 */
export function builtTexts(built: Built[]): { mrkdwn: BuiltText[]; plain: BuiltText[] } {
  const out = { mrkdwn: [] as BuiltText[], plain: [] as BuiltText[] };
  // The texts seen, by builder name: a key joining name and text would copy each long text again.
  const seen = { mrkdwn: new Map<string, Set<string>>(), plain: new Map<string, Set<string>>() };
  for (const { name, built: one } of built) {
    const texts = slackTexts(one);
    for (const kind of ['mrkdwn', 'plain'] as const) {
      const known = seen[kind].get(name) ?? new Set<string>();
      seen[kind].set(name, known);
      for (const text of texts[kind]) {
        if (known.has(text)) continue;
        known.add(text);
        out[kind].push({ name, text });
      }
    }
  }
  return out;
}
