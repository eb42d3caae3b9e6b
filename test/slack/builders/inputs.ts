// The outside values the builders are given, shared by the builder groups of this folder, and how
// what a builder returns is collected.
import { networkSchema } from '../../../src/cngn/schemas.js';
import { atCiSize } from '../../support/runs-scale.js';
import { NOW } from './support.js';

export type Built = { name: string; built: unknown };
/** Collects one builder's output under a name the checks report it by. */
export type Add = (name: string, built: unknown) => void;

/** Explorer links that are not to be linked: another host, plain http on a known host, the text itself. */
export const fakeExplorers = (text: string) => [
  'https://evil.example/tx/0xabc',
  'http://basescan.org/tx/0xabc',
  text,
];

/**
 * Whether a builder group runs `explorer` through every combination of its other inputs. The outside
 * text as explorer always does. The two links that must not become links do at CI size (the proof
 * suite's run of these files); in `npm test` they go through the builders that show an explorer link
 * (the approval message and its copies, every kind and state; the webhook alerts, every event and
 * type), not the many steps and refusals around them, which would build thousands more messages.
 */
export const everyCombination = (explorer: string, text: string): boolean => explorer === text || atCiSize();

/** Slack's own link to a request message (chat.getPermalink): the one link Home makes. */
export const PERMALINK = 'https://example.slack.com/archives/C1/p1000000000000001';

/** A well-formed address, beside ones that are only the outside text. */
export const ADDRESS = '0x52908400098527886E0F7030069857D2E4169EE7';

/** The freeze of sends, its reason from outside. */
export function freezeOf(text: string) {
  return { by: 'UAPPROVERB', reason: text, at: NOW.toISOString() };
}

/** Two networks as the service lists them: one named by the outside text, one disabled. */
export function networksOf(text: string) {
  return [
    networkSchema.parse({ id: text, name: text, short_name: text, isDisabled: false, blockchain: null }),
    networkSchema.parse({ id: 'n2', name: text, short_name: 'base', isDisabled: true, blockchain: null }),
  ];
}

/** Every field of a form set to `text`: as what was typed (prefill) or as each field's error. */
export function fieldsSetTo(ids: string[], text: string): Record<string, string> {
  return Object.fromEntries(ids.map((id) => [id, text]));
}

/** A transaction's receiver in each shape the service sends: text, crypto address, bank account. */
export function receiversOf(text: string): unknown[] {
  return [
    text,
    `058:0123456789:${text}`,
    { address: text },
    { address: ADDRESS },
    { bank: text, accountNumber: text, accountName: text },
    { bank: { name: text, code: text }, accountNumber: '0123456789', accountName: text },
  ];
}
