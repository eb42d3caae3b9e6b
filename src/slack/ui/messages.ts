// The answers every feature sends: a sentence (a warning or a notice), the environment marker every
// answer ends with, the modal shown while a form's data is read (and when it could not be), and the
// section and context blocks they are made of. Pure: text in, Block Kit out.
import type { ContextBlock, KnownBlock, SectionBlock } from '@slack/types';
import type { CngnEnvironment } from '../../cngn/api.js';
import { environmentMarker } from '../../format/display.js';
import { clipMrkdwn, escapeMrkdwn, MAX_MRKDWN_TEXT } from '../../format/mrkdwn.js';
import type { SlackMessage } from '../types.js';

/** Slack refuses a section text longer than 3000 characters; this leaves room for a cut mark. */
export const MAX_SECTION_TEXT = MAX_MRKDWN_TEXT;

/** Slack refuses a section field longer than 2000 characters. */
const MAX_FIELD_TEXT = 1900;

function fitText<T>(object: T, max: number): T {
  const text = (object as { text?: unknown }).text;
  return typeof text === 'string' && text.length > max ? { ...object, text: clipMrkdwn(text, max) } : object;
}

/**
 * Blocks whose every section text, field and context text fits Slack's limits, cut with CUT_MARK where
 * one did not: for a builder whose many values from outside could together pass a limit, so the message
 * is shown cut rather than refused whole.
 */
export function fitBlocks<B extends object>(blocks: B[]): B[] {
  return blocks.map((block) => {
    const type = (block as { type?: unknown }).type;
    if (type === 'section') {
      const { text, fields } = block as SectionBlock;
      return {
        ...block,
        ...(text ? { text: fitText(text, MAX_SECTION_TEXT) } : {}),
        ...(fields ? { fields: fields.map((field) => fitText(field, MAX_FIELD_TEXT)) } : {}),
      };
    }
    if (type === 'context') {
      const { elements } = block as ContextBlock;
      return { ...block, elements: elements.map((element) => fitText(element, MAX_SECTION_TEXT)) };
    }
    return block;
  });
}

export const section = (text: string): SectionBlock => ({
  type: 'section',
  text: { type: 'mrkdwn', text: clipMrkdwn(text) },
});

/**
 * Lines of mrkdwn over as few sections as they fit in, in order: a line too long for one section alone
 * is cut (clipMrkdwn), and no section is empty.
 */
export function sections(lines: readonly string[]): SectionBlock[] {
  const out: SectionBlock[] = [];
  let chunk = '';
  for (const whole of lines) {
    const line = clipMrkdwn(whole);
    if (chunk && chunk.length + 1 + line.length > MAX_SECTION_TEXT) {
      out.push(section(chunk));
      chunk = '';
    }
    chunk = chunk ? `${chunk}\n${line}` : line;
  }
  if (chunk.trim()) out.push(section(chunk));
  return out;
}

export const contextLine = (text: string): KnownBlock => ({
  type: 'context',
  elements: [{ type: 'mrkdwn', text: clipMrkdwn(text) }],
});

/** Every answer ends with where it came from: SANDBOX, TEST or LIVE. */
export function withEnvironment(
  message: SlackMessage,
  environment: CngnEnvironment,
  note?: string,
): SlackMessage {
  const marker = note
    ? `${environmentMarker(environment)} · ${escapeMrkdwn(note)}`
    : environmentMarker(environment);
  return {
    text: message.text,
    blocks: [...message.blocks, contextLine(marker)],
  };
}

/**
 * A sentence as a private answer. It is mrkdwn as it stands: the bot's bold and code spans, and every
 * value from outside already through escapeMrkdwn (describeError's text is).
 */
export function errorMessage(text: string): SlackMessage {
  return { text, blocks: [section(`:warning: ${text}`)] };
}

/** Like errorMessage, without the warning sign. */
export function noticeMessage(text: string): SlackMessage {
  return { text, blocks: [section(text)] };
}

/** Said when Slack did not open a form within the trigger's 3 s. */
export const FORM_NOT_OPENED = 'Slack did not open the form in time. Please run the command again.';
