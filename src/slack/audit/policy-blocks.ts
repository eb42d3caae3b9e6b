// The approvals channel's notice of a policy entry: what changed (every setting, the first time), and
// where the audit chain holds it. Pure: the entry in, the message out. Its lines carry user and group
// mentions, which Slack shows as names; everything else in them is escaped.
import type { KnownBlock } from '@slack/types';
import { POLICY_RECORDED } from '../../approvals/index.js';
import type { AuditEntry } from '../../audit/index.js';
import { lagosTime } from '../../format/display.js';
import { escapeMrkdwn, escapeMrkdwnKeepingMentions } from '../../format/mrkdwn.js';
import type { SlackMessage } from '../types.js';

/** A section holds at most 3000 characters; lines are split over several below that. */
const SECTION_CHARS = 2900;
/** A message holds at most 50 blocks: the title, these sections, the context line. */
const MAX_SECTIONS = 47;

export function policyChangedMessage(entry: AuditEntry, environment: string): SlackMessage {
  const details = entry.policy;
  const recorded = entry.subject === POLICY_RECORDED;
  const title = details?.group
    ? 'User group members changed'
    : recorded
      ? 'Approval policy recorded'
      : 'Approval policy changed';
  const text = `:scroll: *${title}* · ${escapeMrkdwn(environment)}`;
  const lines = (details?.changes ?? []).map((line) => `• ${escapeMrkdwnKeepingMentions(line)}`);
  const blocks: KnownBlock[] = [section(text), ...sections(lines)];
  const seq = entry.seq !== undefined ? `#${entry.seq}` : 'an entry';
  blocks.push({
    type: 'context',
    elements: [
      {
        type: 'mrkdwn',
        text: `Recorded in the audit chain as ${seq} · ${escapeMrkdwn(lagosTime(entry.at))} · \`/cngn audit\` lists it`,
      },
    ],
  });
  return {
    text: `${text}: ${lines.length} change${lines.length === 1 ? '' : 's'}`,
    blocks,
  };
}

/**
 * The lines in sections of at most SECTION_CHARS, at most MAX_SECTIONS of them: a line longer than a
 * section is cut, saying so; lines past the last section are counted (`/cngn audit` lists them all).
 */
function sections(lines: readonly string[]): KnownBlock[] {
  const chunks: string[] = [];
  let chunk = '';
  for (const [index, whole] of lines.entries()) {
    const line = fitted(whole);
    if (chunk && chunk.length + line.length + 1 > SECTION_CHARS) {
      if (chunks.length === MAX_SECTIONS - 1) {
        // Within Slack's 3000: SECTION_CHARS leaves room for this line.
        chunk += `\n… and ${lines.length - index} more line${lines.length - index === 1 ? '' : 's'}`;
        break;
      }
      chunks.push(chunk);
      chunk = '';
    }
    chunk += chunk ? `\n${line}` : line;
  }
  if (chunk) chunks.push(chunk);
  return chunks.map(section);
}

/**
 * A line cut to fit a section, saying how much was left out: at its last space if that keeps at least
 * half the room, else at the room itself, moved back so it never falls inside a mention or an escape.
 */
function fitted(line: string): string {
  if (line.length <= SECTION_CHARS) return line;
  const room = SECTION_CHARS - 60;
  const space = line.lastIndexOf(' ', room);
  const kept = line.slice(0, space >= room / 2 ? space : outsideMarkup(line, room));
  return `${kept} … (${line.length - kept.length} characters more: \`/cngn audit\` lists them)`;
}

/**
 * `at`, or the start of the mention (`<…>`) or escape (`&…;`) that a cut at `at` would go through, or
 * one back when `at` would split a character in two (a surrogate pair).
 */
function outsideMarkup(line: string, at: number): number {
  for (const [opener, closer] of [
    ['<', '>'],
    ['&', ';'],
  ] as const) {
    const open = line.lastIndexOf(opener, at - 1);
    if (open !== -1 && !line.slice(open, at).includes(closer)) return open;
  }
  const last = line.charCodeAt(at - 1);
  return last >= 0xd800 && last <= 0xdbff ? at - 1 : at;
}

function section(text: string): KnownBlock {
  return { type: 'section', text: { type: 'mrkdwn', text } };
}
