// The answers every feature sends: a sentence (a warning or a notice), the environment marker every
// answer ends with, the modal shown while a form's data is read (and when it could not be), and the
// section and context blocks they are made of. Pure: text in, Block Kit out.
import type { KnownBlock, SectionBlock } from '@slack/types';
import type { CngnEnvironment } from '../../cngn/api.js';
import { environmentMarker } from '../../format/display.js';
import { escapeMrkdwn } from '../../format/mrkdwn.js';
import type { SlackMessage } from '../types.js';

/** Slack refuses a section text longer than 3000 characters; this leaves room for a cut mark. */
export const MAX_SECTION_TEXT = 2900;

export const section = (text: string): SectionBlock => ({
  type: 'section',
  text: {
    type: 'mrkdwn',
    text: text.length > MAX_SECTION_TEXT ? `${text.slice(0, MAX_SECTION_TEXT)}…` : text,
  },
});

export const contextLine = (text: string): KnownBlock => ({
  type: 'context',
  elements: [{ type: 'mrkdwn', text }],
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
    blocks: [...message.blocks, { type: 'context', elements: [{ type: 'mrkdwn', text: marker }] }],
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
