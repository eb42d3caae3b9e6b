// The `/cngn help` answer: one line per subcommand with whom it is for, cut into sections of Block
// Kit's size. Pure: the registry's entries in, Block Kit out.
import type { KnownBlock } from '@slack/types';
import type { Role } from '../../access/index.js';
import { escapeMrkdwn } from '../../format/mrkdwn.js';
import type { HelpEntry, SlackMessage } from '../types.js';
import { MAX_SECTION_TEXT, section } from '../ui/messages.js';

const FOR_ROLE: Record<Role, string | undefined> = {
  reader: undefined, // most lines are for readers: the help says so once, not on each line
  requester: 'requesters',
  auditor: 'auditors',
  approver: 'approvers',
};

/** A help line's summary with whom it is for in front: "approvers: check the audit log's…". */
export function helpSummary(entry: HelpEntry): string {
  const who = !entry.who || entry.who === 'anyone' ? undefined : FOR_ROLE[entry.who.role];
  return who ? `${who}: ${entry.summary}` : entry.summary;
}

/** The command list; `notice` (mrkdwn, its outside parts escaped) goes above it. */
export function helpMessage(entries: readonly HelpEntry[], notice?: string): SlackMessage {
  const lines = entries.map(
    (e) =>
      `\`/cngn ${escapeMrkdwn(e.usage)}\` — ${escapeMrkdwn(helpSummary(e))} · e.g. \`/cngn ${escapeMrkdwn(e.example)}\``,
  );
  const blocks: KnownBlock[] = [];
  if (notice) blocks.push(section(notice));
  // A section holds at most MAX_SECTION_TEXT characters: the list goes on in as many as it needs.
  let chunk = '*cNGN treasury commands*';
  for (const line of lines) {
    if (chunk.length + 1 + line.length > MAX_SECTION_TEXT) {
      blocks.push(section(chunk));
      chunk = line;
    } else {
      chunk += `\n${line}`;
    }
  }
  blocks.push(section(chunk));
  blocks.push({
    type: 'context',
    elements: [
      {
        type: 'mrkdwn',
        text: 'Unmarked commands need the reader role. No money moves until a second person approves it in the approvals channel.',
      },
    ],
  });
  return { text: notice ?? 'cNGN treasury commands', blocks };
}
