// `/cngn passkey`: a private one-time link to the registration page, and the list of one's passkeys;
// `/cngn passkey revoke <name>`: end one's own at once; `/cngn passkey revoke @person <name>`: an
// approver ends someone else's (a lost device). The engine decides and records; the passkey book keeps
// the one-time links. For approvers and their delegates (the gate checks it before this runs).
//
// The link (links.ts): `<CNGN_SIGNING_URL, else PUBLIC_URL>/passkeys/register?t=<token>`, where the
// token is the passkey book's one-time link (PasskeyBook.issueLink) for `{ page: 'register', user,
// team }`: valid 10 minutes, used once, bound to the Slack user and install who asked. It carries nothing else: the page
// reads whom it is for from the book with the token (peekLink on load, useLink when filing).

import type { Passkey } from '../../access/index.js';
import { type ApprovalEngine, PasskeyBook } from '../../approvals/index.js';
import { lagosTime, relative } from '../../format/display.js';
import { escapeMrkdwn, mentionUser } from '../../format/mrkdwn.js';
import { type ApprovalSlackDeps, DECIDERS, type FeatureSubcommand, type SlackMessage } from '../types.js';
import { passkeyPageLink } from './links.js';

/** mrkdwn: its `<…>` placeholders written as entities, so Slack shows them as typed. */
const PASSKEY_USAGE =
  'Usage: `/cngn passkey` (a link to register one, and your list); `/cngn passkey revoke &lt;name&gt;`; an approver: `/cngn passkey revoke @person &lt;name&gt;` (a lost device).';

/** An answer made of the bot's own words, mentions and escaped values: already mrkdwn. */
const answer = (text: string): SlackMessage => ({
  text,
  blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }],
});

/** `<@U123|bola>` (a mention, as Slack sends it), `<@U123>`, or a member ID `U123…`. */
function readPerson(word: string | undefined): string | undefined {
  const match =
    /^<@([UW][A-Z0-9]{2,})(?:\|[^>]*)?>$/.exec(word ?? '') ?? /^([UW][A-Z0-9]{2,})$/.exec(word ?? '');
  return match?.[1];
}

/** One passkey: its name, when added, when last used. */
function passkeyLine(passkey: Passkey, now: Date): string {
  const used = passkey.lastUsedAt
    ? `last used ${escapeMrkdwn(relative(passkey.lastUsedAt, now))}`
    : 'not used yet';
  return `• *${escapeMrkdwn(passkey.name)}* — added ${escapeMrkdwn(lagosTime(passkey.addedAt))}, ${used}`;
}

/** `user`'s passkeys that count, and their registrations still waiting for another approver. */
async function passkeyList(engine: ApprovalEngine, user: string, now: Date): Promise<string> {
  const held = await engine.passkeys.passkeysOf(user);
  const waiting = (await engine.openRequests()).filter(
    (r) => r.kind === 'passkey' && r.state === 'pending' && r.payload.user === user,
  );
  const lines = held.map((p) => passkeyLine(p, now));
  for (const r of waiting) {
    if (r.kind === 'passkey')
      lines.push(`• *${escapeMrkdwn(r.payload.name)}* — waiting for another approver (${r.id})`);
  }
  return lines.length > 0 ? `*Your passkeys*\n${lines.join('\n')}` : '*Your passkeys*\nnone yet';
}

/** `/cngn passkey`: the one-time link (when signing is on and the pages are served) and the list. */
async function linkAndList(userId: string, teamId: string, deps: ApprovalSlackDeps): Promise<SlackMessage> {
  const now = (deps.now ?? (() => new Date()))();
  const list = await passkeyList(deps.engine, userId, now);
  // No signing URL: signing is off (with it on, the configuration requires one).
  if (!deps.signingUrl) {
    return answer(
      `Passkeys are not in use here: signing is off (CNGN_SIGNED_APPROVALS), so approvals are made with a click and there is nothing to register.\n\n${list}`,
    );
  }
  const book = new PasskeyBook(deps.store, deps.engine.environment());
  const token = await book.issueLink({ page: 'register', user: userId, team: teamId });
  const link = passkeyPageLink(deps.signingUrl, 'register', token);
  return answer(
    `<${link}|Register a passkey> — this link is yours only, works once, for 10 minutes. Name it there (such as "Bola's MacBook"); it counts once another approver approves "Register a passkey for ${mentionUser(userId)}".\n\n${list}\n\n${PASSKEY_USAGE}`,
  );
}

/** `revoke <name>` or `revoke @person <name>`. */
async function revoke(words: string[], userId: string, deps: ApprovalSlackDeps): Promise<SlackMessage> {
  const person = readPerson(words[0]);
  const owner = person ?? userId;
  const name = (person ? words.slice(1) : words).join(' ').trim();
  if (!name) return answer(`Name: say which passkey. ${PASSKEY_USAGE}`);
  const result = await deps.engine.passkeys.revokePasskey(userId, owner, name);
  if (!result.ok) return answer(`${escapeMrkdwn(result.problem)} Nothing changed.`);
  const whose = owner === userId ? 'Your passkey' : `${mentionUser(owner)}'s passkey`;
  return answer(
    `Revoked at once: ${whose} *${escapeMrkdwn(name)}*. Approvals are no longer signed with it; it stays on the record.`,
  );
}

async function passkeyCommand(
  args: string[],
  userId: string,
  teamId: string,
  deps: ApprovalSlackDeps,
): Promise<SlackMessage> {
  const [first, ...rest] = args;
  if (!first) return linkAndList(userId, teamId, deps);
  if (first.toLowerCase() === 'revoke') return revoke(rest, userId, deps);
  return answer(PASSKEY_USAGE);
}

export const PASSKEY_SUBCOMMAND: FeatureSubcommand<'approvals', ApprovalSlackDeps> = {
  name: 'passkey',
  usage: 'passkey [revoke [@person] <name>]',
  summary: 'register a passkey to sign approvals with (another approver approves it); list or revoke yours',
  who: DECIDERS,
  example: 'passkey',
  needs: 'approvals',
  run: (command, deps) => passkeyCommand(command.args, command.userId, command.teamId ?? '', deps),
};
