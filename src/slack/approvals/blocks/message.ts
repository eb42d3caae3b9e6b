// The approval request as approvers see it in the approvals channel, updated in place at each step.
// Pure: request and the current time in, Block Kit out. Every name, address, reason and note in a
// request came from a person, the bank or the service: each is escaped where it enters mrkdwn.
import type { Button, KnownBlock } from '@slack/types';
import { isLive } from '../../../access/index.js';
import {
  type ApprovalRequest,
  CONFLICT_ACTION,
  delegationOf,
  ENDED_NOTE_START,
  EVIDENCE_FAILED,
  type Freeze,
  heldByFreeze,
  OPEN_STATES,
  SENDING_UNCLEAR_ACTION,
  STOP_NOT_CHECKED_ACTION,
  STOPPED_BUT_FOUND_ACTION,
} from '../../../approvals/index.js';
import { lagosTime, naira, relative } from '../../../format/display.js';
import {
  clipMrkdwn,
  escapeMrkdwn,
  explorerLink,
  hasHiddenCharacters,
  inertUrl,
  mentionChannel,
  mentionUser,
} from '../../../format/mrkdwn.js';
import type { SlackMessage } from '../../types.js';
import { freezeBanner, unfreezeFields } from '../../ui/freeze.js';
import { fitBlocks } from '../../ui/messages.js';
import { environmentLabel, KIND_TITLE, requestTitle, stateWords } from '../../ui/words.js';
import { type ApprovalsShown, FILED_COUNT } from './approvals-shown.js';
import { checksBlocks } from './checks.js';
import { tierBasisNotice } from './limits.js';
import { purposeBlocks } from './purpose.js';
import { extendButtons, lifecycleContext } from './reminders.js';
import { sameRequestNotice } from './same-request.js';

export const APPROVE_ACTION = 'approval.approve';
export const REJECT_ACTION = 'approval.reject';
export const CANCEL_ACTION = 'approval.cancel';
export const APPROVAL_ACTIONS_BLOCK = 'approval.actions';

const field = (label: string, value: string) => ({ type: 'mrkdwn' as const, text: `*${label}*\n${value}` });
/** An address or account number from outside, in a code span. */
const code = (value: string) => `\`${escapeMrkdwn(value)}\``;

/** Where the money or the routing goes, in the words an approver checks. */
export function destinationFields(request: ApprovalRequest): Array<{ type: 'mrkdwn'; text: string }> {
  const d = request.display;
  switch (request.kind) {
    case 'withdraw':
      return [
        field('To address', code(request.payload.address)),
        field('Network', escapeMrkdwn(d.networkName ?? request.payload.networkId)),
        field('Save address', request.payload.shouldSaveAddress ? 'yes (whitelist it)' : 'no'),
      ];
    case 'redeem':
      return [
        field(
          'To bank account',
          `${escapeMrkdwn(d.bankName ?? request.payload.bankCode)} · ${escapeMrkdwn(request.payload.accountNumber)}`,
        ),
        field('Account name (resolved)', d.accountName ? escapeMrkdwn(d.accountName) : '—'),
      ];
    case 'bridge':
      return bridgeFields(request);
    case 'whitelist':
      return [
        field('Address', code(request.payload.address)),
        field('Network', escapeMrkdwn(d.networkName ?? request.payload.networkId)),
      ];
    case 'delegation': {
      const p = request.payload;
      return [
        field('Approver away', mentionUser(p.delegator)),
        field('Delegate (approves in their place)', mentionUser(p.delegate)),
        field('Until', escapeMrkdwn(lagosTime(p.until))),
        field('Cap per request', p.max ? escapeMrkdwn(naira(p.max)) : 'no cap'),
      ];
    }
    case 'settlement':
      return [
        field(
          'New settlement account',
          `${escapeMrkdwn(request.payload.bankName)} · ${escapeMrkdwn(request.payload.bankAccountNumber)}`,
        ),
        field('Account name (resolved)', escapeMrkdwn(request.payload.bankAccountName)),
      ];
    case 'unfreeze':
      return unfreezeFields(request.payload).map(([label, value]) => field(label, value));
    case 'passkey':
      return [
        field('Passkey for', mentionUser(request.payload.user)),
        field('Name', escapeMrkdwn(request.payload.name)),
        field('Credential', code(request.payload.credentialId)),
      ];
  }
}

/** A bridge's route, addresses and, once quoted, what arrives and the fees. */
function bridgeFields(
  request: Extract<ApprovalRequest, { kind: 'bridge' }>,
): Array<{ type: 'mrkdwn'; text: string }> {
  const d = request.display;
  const q = d.quote;
  const out = [
    field(
      'Route',
      `${escapeMrkdwn(d.originNetworkName ?? 'origin')} → ${escapeMrkdwn(d.destinationNetworkName ?? 'destination')}`,
    ),
    field('Destination address', code(request.payload.destinationAddress)),
  ];
  if (request.payload.senderAddress) out.push(field('Sender address', code(request.payload.senderAddress)));
  if (q) {
    out.push(field('Receivable', escapeMrkdwn(naira(q.amountReceivable))));
    out.push(
      field(
        'Fees',
        `network ${escapeMrkdwn(naira(q.networkFee))} · bridge ${escapeMrkdwn(naira(q.bridgeFee))}`,
      ),
    );
  }
  return out;
}

/** The outside texts among a request's figures, each with the words that name it. */
function destinationTexts(request: ApprovalRequest): Array<[words: string, value: string | undefined]> {
  const d = request.display;
  switch (request.kind) {
    case 'withdraw':
      return [
        ['address', request.payload.address],
        ['network name', d.networkName ?? request.payload.networkId],
      ];
    case 'redeem':
      return [
        ['bank name', d.bankName ?? request.payload.bankCode],
        ['account number', request.payload.accountNumber],
        ['account name', d.accountName],
      ];
    case 'bridge':
      return [
        ['origin network name', d.originNetworkName],
        ['destination network name', d.destinationNetworkName],
        ['destination address', request.payload.destinationAddress],
        ['sender address', request.payload.senderAddress],
      ];
    case 'whitelist':
      return [
        ['address', request.payload.address],
        ['network name', d.networkName ?? request.payload.networkId],
      ];
    case 'settlement':
      return [
        ['bank name', request.payload.bankName],
        ['account number', request.payload.bankAccountNumber],
        ['account name', request.payload.bankAccountName],
      ];
    case 'delegation':
      return [];
    case 'unfreeze':
      return [['reason', request.payload.reason]];
    case 'passkey':
      return [['passkey name', request.payload.name]];
  }
}

/** What an approver does about hidden characters, said after which figures hold them. */
export const HIDDEN_CHARACTERS_ADVICE =
  'Such characters can make text read as other text: check it with the bank or whoever gave it before this is approved.';

/**
 * Which of a request's names, addresses and purpose hold hidden characters, with the verb ("the
 * account name contains", "the bank name and the purpose contain"); undefined when none does.
 */
function hiddenCharactersIn(request: ApprovalRequest): string | undefined {
  const texts = [...destinationTexts(request), ['purpose', request.purpose] as const];
  const fields = texts.filter(([, value]) => hasHiddenCharacters(value)).map(([words]) => `the ${words}`);
  if (fields.length === 0) return undefined;
  return fields.length === 1
    ? `${fields[0]} contains`
    : `${fields.slice(0, -1).join(', ')} and ${fields.at(-1)} contain`;
}

/**
 * Said in words under the figures when a name or address holds hidden characters (each is shown as a
 * marker such as ⟨U+202E⟩), so whoever approves looks twice; nothing when none does.
 */
export function hiddenCharactersNotice(request: ApprovalRequest): KnownBlock[] {
  const which = hiddenCharactersIn(request);
  if (!which) return [];
  const text = `:warning: *Look twice: ${which} hidden characters*, shown as ⟨U+…⟩. ${HIDDEN_CHARACTERS_ADVICE}`;
  return [{ type: 'context', elements: [{ type: 'mrkdwn', text }] }];
}

/** `<@Bola> on behalf of <@Chidi>` for a delegate's approval. */
export function approverWords(approval: { user: string; onBehalfOf?: string | undefined }): string {
  const behalf = approval.onBehalfOf ? ` on behalf of ${mentionUser(approval.onBehalfOf)}` : '';
  return `${mentionUser(approval.user)}${behalf}`;
}

function approvalsLine(request: ApprovalRequest, shown: ApprovalsShown): string {
  const who = request.approvals.map(approverWords).join(', ');
  return `${request.approvals.length} of ${shown(request)}${who ? ` (${who})` : ''}`;
}

/** A failure's reason is shown up to this many characters, escaped. */
const REASON_CHARS = 1500;

function outcomeLines(request: ApprovalRequest): string[] {
  const o = request.outcome;
  if (!o) return [];
  const lines: string[] = [];
  if (o.reference) lines.push(`Reference: ${code(o.reference)}`);
  if (o.receivableAddress)
    lines.push(`Send the quoted amount to ${code(o.receivableAddress)} on the origin network`);
  if (o.explorerLink)
    lines.push(
      explorerLink(o.explorerLink, 'View on the explorer') ?? `Explorer link: ${inertUrl(o.explorerLink)}`,
    );
  // The service's words can be long: cut, after escaping, so the rest of the outcome still shows.
  if (o.reason && request.state === 'failed')
    lines.push(clipMrkdwn(`Reason: ${escapeMrkdwn(o.reason)}`, REASON_CHARS));
  return lines;
}

/** Approve and Reject carry `id:round`: a click binds to the figures shown in that round. */
export function approvalButtonValue(request: ApprovalRequest): string {
  return `${request.id}:${request.round}`;
}

/** The request and round a button was rendered for; a bare id is a button from before rounds were bound: round 0. */
export function readButtonValue(value: string | undefined): { id: string; round: number } {
  const match = /^(.+):(\d+)$/.exec(value ?? '');
  return match ? { id: match[1] ?? '', round: Number(match[2]) } : { id: value ?? '', round: 0 };
}

/** Amount, destination, people, expiry: the figures an approver checks. */
export function figuresSection(
  request: ApprovalRequest,
  now: Date,
  shown: ApprovalsShown = FILED_COUNT,
): KnownBlock {
  return {
    type: 'section',
    fields: [
      ...(request.amount ? [field('Amount', escapeMrkdwn(naira(request.amount)))] : []),
      ...destinationFields(request),
      field('Requested by', mentionUser(request.requester)),
      field('Approvals', approvalsLine(request, shown)),
      field(
        request.state === 'pending' ? 'Expires' : 'Filed',
        request.state === 'pending'
          ? `${lagosTime(request.expiresAt)} (${relative(request.expiresAt, now)})`
          : lagosTime(request.createdAt),
      ),
      field('Environment', environmentLabel(request.environment)),
    ].slice(0, 10),
  };
}

/** Said privately to someone who clicked a message showing an earlier round of the request. */
export function staleRoundNotice(
  request: ApprovalRequest,
  now: Date,
  shown: ApprovalsShown = FILED_COUNT,
): SlackMessage {
  const why = request.reason ? ` (${escapeMrkdwn(request.reason)})` : '';
  const text = `${escapeMrkdwn(requestTitle(request))} changed since the message you clicked was shown${why}. Your click changed nothing. Here are the new figures; approve or reject from the updated request message if they are right.`;
  return {
    text,
    blocks: fitBlocks([
      { type: 'section', text: { type: 'mrkdwn', text } },
      figuresSection(request, now, shown),
      ...purposeBlocks(request),
      ...hiddenCharactersNotice(request),
    ]),
  };
}

/** Which buttons a copy of the message carries: the channel's has all three by default. */
export interface MessageButtons {
  /** Approve and Reject (false: approvers are asked by DM only, CNGN_APPROVAL_NOTIFY=dm). */
  approve?: boolean;
  /** The requester's Cancel (false on the copies sent to approvers). */
  cancel?: boolean;
}

/**
 * `freeze`: the freeze of sends in place when rendered; an open request then carries its banner (its
 * own unfreeze request says what it lifts instead). `shown`: how many approvals it needs, from the engine.
 */
export function approvalMessage(
  request: ApprovalRequest,
  now: Date,
  buttons: MessageButtons = {},
  freeze?: Freeze,
  shown: ApprovalsShown = FILED_COUNT,
): SlackMessage {
  const blocks: KnownBlock[] = [
    {
      type: 'header',
      text: {
        type: 'plain_text',
        text: `${KIND_TITLE[request.kind]} · ${environmentLabel(request.environment)}`,
      },
    },
    {
      type: 'section',
      text: { type: 'mrkdwn', text: `*${stateLine(request, freeze)}*  ·  ${code(request.id)}` },
    },
    ...(freeze && OPEN_STATES.has(request.state) && request.kind !== 'unfreeze'
      ? [freezeBanner(freeze)]
      : []),
    ...conflictBlocks(request),
    figuresSection(request, now, shown),
    ...purposeBlocks(request),
    ...hiddenCharactersNotice(request),
    ...sameRequestNotice(request, now),
    ...tierBasisNotice(request),
    ...checksBlocks(request, now),
  ];
  blocks.push(...reasonBlocks(request));
  const outcome = outcomeLines(request);
  if (outcome.length > 0) {
    blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: clipMrkdwn(outcome.join('\n')) }] });
  }
  blocks.push(...lifecycleContext(request));
  blocks.push(...delegationBlocks(request, now));
  const elements =
    request.state === 'pending'
      ? [
          ...approvalButtons(request, buttons),
          // Extend is the requester's, beside Cancel: not on approvers' DM copies.
          ...(buttons.cancel !== false ? extendButtons(request) : []),
        ]
      : request.state === 'approved'
        ? stopButtons(request, buttons)
        : [];
  if (elements.length > 0) blocks.push({ type: 'actions', block_id: APPROVAL_ACTIONS_BLOCK, elements });
  return {
    text: `${escapeMrkdwn(requestTitle(request))}: ${stateLine(request, freeze).replace(/^:[a-z_]+: /, '')}`,
    // Many values from outside (names, addresses, reasons) share these blocks: cut rather than refused.
    blocks: fitBlocks(blocks),
  };
}

/** Why a request was sent back to the approvers, rejected or cancelled. */
function reasonBlocks(request: ApprovalRequest): KnownBlock[] {
  const blocks: KnownBlock[] = [];
  if (request.reason && request.state === 'pending') {
    blocks.push({
      type: 'context',
      elements: [
        {
          type: 'mrkdwn',
          text: clipMrkdwn(`:warning: Sent back to the approvers: ${escapeMrkdwn(request.reason)}`),
        },
      ],
    });
  }
  // A rejection's reason, or why the bot cancelled a request (a cancel by its requester has none).
  if (request.reason && (request.state === 'rejected' || request.state === 'cancelled')) {
    blocks.push({
      type: 'context',
      elements: [{ type: 'mrkdwn', text: clipMrkdwn(`Reason: ${escapeMrkdwn(request.reason)}`) }],
    });
  }
  return blocks;
}

/** A delegation's state: in effect until when, ended, or revoked and by whom. */
function delegationBlocks(request: ApprovalRequest, now: Date): KnownBlock[] {
  const delegation = delegationOf(request);
  if (!delegation) return [];
  const { revoked } = delegation;
  // Without an actor the bot ended it: who may no longer act here follows, once.
  const why = revoked && !revoked.by ? whyTheBot(revoked.note, ENDED_NOTE_START) : undefined;
  const endedBy = revoked?.by ? `Revoked by ${mentionUser(revoked.by)}` : 'Ended by the bot';
  const said = revoked
    ? `:no_entry_sign: ${endedBy} (${escapeMrkdwn(lagosTime(revoked.at))}): no longer in effect${why ? ` — ${escapeMrkdwn(why)}` : ''}`
    : isLive(delegation, now)
      ? `:handshake: In effect until ${escapeMrkdwn(lagosTime(delegation.until))}`
      : `Ended ${escapeMrkdwn(lagosTime(delegation.until))}`;
  return [{ type: 'context', elements: [{ type: 'mrkdwn', text: said }] }];
}

/** Why the bot ended or cancelled a delegation: its note without the `opening` that says the bot did. */
export function whyTheBot(note: string | undefined, opening: string): string | undefined {
  return note?.startsWith(opening) ? note.slice(opening.length) : note;
}

/**
 * The state in words; a request the service contradicted itself about says so first, and an approved
 * one a freeze holds says it is held. The DM copies' header says the same (dm.ts).
 */
export function stateLine(request: ApprovalRequest, freeze?: Freeze): string {
  if (freeze && request.state === 'approved' && heldByFreeze(request)) {
    return ':lock: Approved, held: sends are frozen';
  }
  if (!request.conflicts?.length) return stateWords(request);
  return `:warning: Conflicting reports from the service — check with the service (recorded: ${stateWords(request).replace(/^:[a-z_]+: /, '')})`;
}

/** Each contradicting report, as the engine said it (it names outside text: escaped). */
function conflictBlocks(request: ApprovalRequest): KnownBlock[] {
  if (!request.conflicts?.length) return [];
  const lines = request.conflicts.slice(-5).map((c) => `:warning: ${escapeMrkdwn(c.note)}`);
  return [{ type: 'section', text: { type: 'mrkdwn', text: lines.join('\n') } }];
}

/**
 * Notices a person must act on, said in the alerts channel too: reports that contradict each other, a
 * stopped request the service lists a matching transaction for, or whose lookup could not be made
 * (stop-lookup.ts), an approved request an earlier claim of which may have been sent (hand-back.ts). Their notes name
 * what the service said (references), so they are escaped as outside text.
 */
export const NEEDS_A_PERSON_NOTICES: ReadonlySet<string> = new Set([
  CONFLICT_ACTION,
  STOPPED_BUT_FOUND_ACTION,
  STOP_NOT_CHECKED_ACTION,
  SENDING_UNCLEAR_ACTION,
]);

/**
 * The alert for a person when the newest step is one of NEEDS_A_PERSON_NOTICES (the service
 * contradicted itself, a stopped request matches a transaction), or saying `said` (a request settled
 * before sending as the signed audit chain records it): posted in the alerts channel, pointing at the
 * request's message.
 */
export function conflictAlert(request: ApprovalRequest, said?: string): SlackMessage {
  const step = request.history.at(-1);
  const note = said ?? (step && NEEDS_A_PERSON_NOTICES.has(step.action) ? (step.note ?? '') : '');
  const reference = request.outcome?.reference ? ` · reference ${code(request.outcome.reference)}` : '';
  const where = request.announcement
    ? ` · its message is in ${mentionChannel(request.announcement.channel)}`
    : '';
  const title = escapeMrkdwn(requestTitle(request));
  // A note naming many references may run past Slack's limit: cut, never refused.
  const text = clipMrkdwn(
    `:rotating_light: *Needs a person:* ${title}${reference}${where}\n${escapeMrkdwn(note)}`,
  );
  return {
    text: clipMrkdwn(`Needs a person: ${title}: ${escapeMrkdwn(note)}`),
    blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }],
  };
}

/**
 * The alert for a person when a request failed just before sending because it was changed outside the
 * bot or an approval no longer counts (`note`, one of NEEDS_A_PERSON_NOTES: an approval's evidence
 * written into the store by hand, a count lowered, …): posted in the alerts channel, pointing at the
 * request's message.
 */
export function evidenceAlert(request: ApprovalRequest, note: string): SlackMessage {
  const where = request.announcement
    ? ` · its message is in ${mentionChannel(request.announcement.channel)}`
    : '';
  const title = escapeMrkdwn(requestTitle(request));
  const said =
    note === EVIDENCE_FAILED
      ? `Approval evidence does not verify for ${title}: nothing was sent`
      : `${title} failed before sending, nothing was sent: ${escapeMrkdwn(note)}`;
  const text = `:rotating_light: *Needs a person:* ${said}${where}`;
  return { text: `Needs a person: ${said}`, blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }] };
}

/** Approve and Reject (bound to the round shown) and the requester's Cancel, as asked. */
export function approvalButtons(request: ApprovalRequest, buttons: MessageButtons = {}): Button[] {
  const value = approvalButtonValue(request);
  const out: Button[] = [];
  if (buttons.approve !== false) {
    out.push(
      { type: 'button', action_id: APPROVE_ACTION, style: 'primary', text: plain('Approve'), value },
      { type: 'button', action_id: REJECT_ACTION, style: 'danger', text: plain('Reject'), value },
    );
  }
  if (buttons.cancel !== false) {
    out.push({
      type: 'button',
      action_id: CANCEL_ACTION,
      text: plain('Cancel (requester)'),
      value: request.id,
    });
  }
  return out;
}

/**
 * An approved request not yet claimed for sending (held by a freeze, say) can still be stopped: Reject
 * (the same reason modal as a waiting request's) and the requester's Cancel, no Approve.
 */
function stopButtons(request: ApprovalRequest, buttons: MessageButtons = {}): Button[] {
  return approvalButtons(request, buttons).filter((button) => button.action_id !== APPROVE_ACTION);
}

const plain = (text: string) => ({ type: 'plain_text' as const, text });
