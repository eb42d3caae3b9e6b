// The request as the store holds it, in plain words for the sign page: every field of what is sent in
// full (the whole address or account, never shortened), the look-alike and first-payment marks on the
// destination they concern, and what the bot checked when it was filed. Every field reads under the
// words the Slack approval message uses for it: people by their Slack id, then the name Slack knows them
// by (looked up by the caller) as a part of its own, since anyone can choose a name; times in Lagos time,
// amounts in naira. Text from outside is inert as in Slack: hidden and bidi characters are shown as
// markers (`⟨U+202E⟩`), so a name reads as it is, and any value shown that holds one says "Look twice".
// Pure: the request and the names in, the page's view out; the page puts every value in as text.
import type { ApprovalRequest, LookAlikeMark } from '../approvals/index.js';
import { lagosTime, naira } from '../format/display.js';
import { hasHiddenCharacters, markHiddenCharacters } from '../format/hidden-characters.js';
import { isSlackId } from '../format/mrkdwn.js';
import { HIDDEN_CHARACTERS_ADVICE } from '../slack/approvals/blocks/message.js';
import { KIND_TITLE } from '../slack/ui/words.js';
import {
  CHECKS_HEADING,
  type Figure,
  type Person,
  SIGNED_TEXT_HEADING,
  type SignRequestView,
} from './protocol.js';

/** Not shown: a bridge's callback (it is no part of what is signed) and a passkey's key material. */
const HIDDEN_KEYS = ['amount', 'callbackUrl', 'publicKey', 'counter', 'transports', 'aaguid'] as const;
const HIDDEN: ReadonlySet<string> = new Set(HIDDEN_KEYS);

type KeysOf<T> = T extends unknown ? keyof T : never;
/** Every field any kind's payload has; a new one does not compile until it has a label here. */
type ShownKey = Exclude<KeysOf<ApprovalRequest['payload']>, (typeof HIDDEN_KEYS)[number]>;

/** Every payload field shown, under the words the Slack approval message uses for it. */
const LABELS: Record<ShownKey, string> = {
  address: 'To address',
  networkId: 'Network',
  originNetworkId: 'From network',
  destinationNetworkId: 'To network',
  destinationAddress: 'Destination address',
  senderAddress: 'Sender address',
  shouldSaveAddress: 'Save address (whitelist it)',
  bankCode: 'To bank account',
  accountNumber: 'To bank account',
  bankName: 'New settlement account',
  bankAccountNumber: 'New settlement account',
  bankAccountName: 'Account name (resolved)',
  delegator: 'Approver away',
  delegate: 'Delegate (approves in their place)',
  until: 'Until',
  max: 'Cap per request',
  user: 'Passkey for',
  name: 'Passkey name',
  credentialId: 'Credential id',
  frozenBy: 'Frozen by',
  frozenAt: 'Frozen since',
  reason: 'Reason for the freeze',
};

/** A kind's own word for a field, where the shared one would say something else (Slack's words). */
const KIND_LABELS: Partial<Record<ApprovalRequest['kind'], Record<string, string>>> = {
  // A whitelisted address is not where money goes.
  whitelist: { address: 'Address' },
};

/**
 * Fields Slack shows after another on one line, the bank then the account ("Access Bank (044) ·
 * 0123456789"): each names the field it joins.
 */
const JOINS: Record<string, string> = { accountNumber: 'bankCode', bankAccountNumber: 'bankName' };

/** Payload fields that hold a person (a Slack id, or words such as the start-up's freeze). */
const PERSON_KEYS = new Set(['user', 'delegator', 'delegate', 'frozenBy']);

/** Payload fields that hold an instant. */
const TIME_KEYS = new Set(['until', 'frozenAt']);

/** The fields that name where the money goes: a first payment is marked on them. */
const DESTINATION_KEYS = new Set(['address', 'accountNumber', 'destinationAddress']);

/** The request's display field that names a payload field's network or bank. */
const NAMED_BY: Record<string, string> = {
  networkId: 'networkName',
  originNetworkId: 'originNetworkName',
  destinationNetworkId: 'destinationNetworkName',
  bankCode: 'bankName',
};

const ENVIRONMENT: Record<string, string> = { live: 'LIVE', test: 'TEST', sandbox: 'SANDBOX' };

function text(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (typeof value === 'number') return String(value);
  return JSON.stringify(value);
}

const lookAlikeWords = (mark: LookAlikeMark) =>
  `Look-alike address: it resembles ${mark.known}, ${mark.knownAs === 'paid' ? 'paid before' : 'on the whitelist'}, but is not the same. Compare every character.`;

/** The marks a destination value carries: a look-alike of a known address, a first payment. */
function marksFor(request: ApprovalRequest, key: string, value: string): string | undefined {
  const checks = request.preflight;
  const marks: string[] = [];
  const destination = DESTINATION_KEYS.has(key);
  if (checks?.lookAlike && checks.lookAlike.candidate.toLowerCase() === value.toLowerCase())
    marks.push(lookAlikeWords(checks.lookAlike));
  if (destination && checks?.firstPayment) {
    const unsent = request.earlier?.unsent;
    marks.push(
      unsent
        ? `Not paid yet: ${unsent.id} to this destination was filed first and is not sent yet.`
        : 'First payment to this destination.',
    );
  }
  return marks.length > 0 ? marks.join(' ') : undefined;
}

/** The Slack users `request`'s figures name, for the caller to look up (signRequestView's `names`). */
export function peopleIn(request: ApprovalRequest): string[] {
  const payload = request.payload as unknown as Record<string, unknown>;
  return [...PERSON_KEYS].flatMap((key) => {
    const value = payload[key];
    return typeof value === 'string' && isSlackId(value) ? [value] : [];
  });
}

/** People's names by Slack id, as Slack gives them ("Ade Bello"), for those it named. */
type Names = ReadonlyMap<string, string>;

/** `id` as the page shows a person: the id, then their name if Slack gave one. */
export function personOf(id: string, names: Names): Person {
  const name = names.get(id);
  return name !== undefined && name !== id ? { id, name } : { id };
}

/**
 * One payload value as shown: a person by Slack id and their name ('' when Slack gave none), times and
 * amounts in words, with a network's or bank's name before its id.
 */
function shownValue(
  key: string,
  raw: unknown,
  display: Record<string, unknown>,
  names: Names,
): Pick<Figure, 'id' | 'value'> {
  if (PERSON_KEYS.has(key) && typeof raw === 'string' && isSlackId(raw)) {
    const person = personOf(raw, names);
    return { id: person.id, value: person.name ?? '' };
  }
  return { value: shownWords(key, raw, display) };
}

function shownWords(key: string, raw: unknown, display: Record<string, unknown>): string {
  if (TIME_KEYS.has(key)) return lagosTime(text(raw));
  if (key === 'max') return naira(text(raw));
  const nameKey = NAMED_BY[key];
  const named = nameKey ? display[nameKey] : undefined;
  return typeof named === 'string' ? `${named} (${text(raw)})` : text(raw);
}

/**
 * Every payload field in full, with what the request's display adds (network and bank names); a field
 * that joins another goes after it on its line, whichever comes first in the payload.
 */
function destinationFigures(request: ApprovalRequest, names: Names): Figure[] {
  const figures: Figure[] = [];
  const byKey = new Map<string, Figure>();
  const joining: Array<[key: string, figure: Figure]> = [];
  const display = request.display as Record<string, unknown>;
  const labels: Record<string, string> = { ...LABELS, ...KIND_LABELS[request.kind] };
  for (const [key, raw] of Object.entries(request.payload as unknown as Record<string, unknown>)) {
    if (HIDDEN.has(key) || raw === undefined || raw === null) continue;
    const mark = marksFor(request, key, text(raw));
    const figure: Figure = {
      label: labels[key] ?? key,
      ...shownValue(key, raw, display, names),
      ...(mark ? { mark } : {}),
    };
    byKey.set(key, figure);
    if (JOINS[key]) joining.push([key, figure]);
    else figures.push(figure);
  }
  for (const [key, figure] of joining) {
    const joined = byKey.get(JOINS[key] ?? '');
    if (joined) join(joined, figure.value, figure.mark);
    else figures.push(figure);
  }
  return [...figures, ...slackOnlyFigures(request)];
}

/** `value` after `figure`'s own on its line, and its mark after the figure's. */
function join(figure: Figure, value: string, mark: string | undefined): void {
  figure.value = `${figure.value} · ${value}`;
  if (mark) figure.mark = figure.mark ? `${figure.mark} ${mark}` : mark;
}

/**
 * What Slack's message adds to the payload: a redemption's resolved name, a delegation without a cap,
 * a quoted bridge's receivable and fees (display only: the quote is not in the body sent).
 */
function slackOnlyFigures(request: ApprovalRequest): Figure[] {
  const quote = request.kind === 'bridge' ? request.display.quote : undefined;
  if (quote)
    return [
      { label: 'Receivable', value: naira(quote.amountReceivable) },
      { label: 'Fees', value: `network ${naira(quote.networkFee)} · bridge ${naira(quote.bridgeFee)}` },
    ];
  if (request.kind === 'redeem')
    return [{ label: 'Account name (resolved)', value: request.display.accountName ?? '—' }];
  if (request.kind === 'delegation' && !request.payload.max)
    return [{ label: 'Cap per request', value: 'no cap' }];
  return [];
}

/** What the page shows besides its figures. */
interface OtherShown {
  requester: Person;
  /** The check sentences (a network's name, an address, what could not be read). */
  checks: string[];
  /** The signed text (an id, a passkey's key material, the purpose…). */
  bytes: string;
}

/**
 * Slack's "Look twice" notice, in plain words, when any value the page shows holds hidden characters
 * (a name, an id, an address, a mark, the purpose, the requester's name, a check, the signed text):
 * each named by its label or heading.
 */
function hiddenCharactersSentences(figures: Figure[], other: OtherShown): string[] {
  const { requester, checks, bytes } = other;
  const which = [
    ...new Set([
      ...figures
        .filter((f) => [f.id, f.value, f.mark].some((shown) => hasHiddenCharacters(shown)))
        .map((f) => `“${f.label}”`),
      ...(hasHiddenCharacters(requester.id) || hasHiddenCharacters(requester.name) ? ['the requester'] : []),
      ...(checks.some((sentence) => hasHiddenCharacters(sentence)) ? [`“${CHECKS_HEADING}”`] : []),
      ...(hasHiddenCharacters(bytes) ? [`“${SIGNED_TEXT_HEADING}”`] : []),
    ]),
  ];
  if (which.length === 0) return [];
  const fields =
    which.length === 1
      ? `${which[0]} contains`
      : `${which.slice(0, -1).join(', ')} and ${which.at(-1)} contain`;
  return [`Look twice: ${fields} hidden characters, shown as ⟨U+…⟩. ${HIDDEN_CHARACTERS_ADVICE}`];
}

/** What the bot checked at filing, one plain sentence each. */
function checkSentences(request: ApprovalRequest): string[] {
  const checks = request.preflight;
  if (!checks) return [];
  const lines: string[] = [];
  const b = checks.balance;
  if (b) {
    lines.push(
      `Balance ${naira(b.balance)} as of ${lagosTime(b.asOf)}; ${naira(b.committed)} committed; after this ${naira(b.after)}${b.enough ? '' : ' (not enough)'}.`,
    );
  }
  if (checks.network)
    lines.push(`Network ${checks.network.name}: ${checks.network.enabled ? 'enabled' : 'disabled'}.`);
  if (checks.address) lines.push(`Address ${checks.address.shown}: ${checks.address.checked} checked.`);
  if (checks.whitelisted !== undefined)
    lines.push(checks.whitelisted ? 'On the whitelist.' : 'Not on the whitelist.');
  return [...lines, ...markSentences(checks)];
}

/** The destination's marks and what could not be checked. */
function markSentences(checks: NonNullable<ApprovalRequest['preflight']>): string[] {
  const lines: string[] = [];
  if (checks.firstPayment) lines.push('First payment to this destination.');
  if (checks.lookAlike) lines.push(lookAlikeWords(checks.lookAlike));
  if (checks.sameAs) lines.push(`The same payment as ${checks.sameAs.id} (${checks.sameAs.state}).`);
  for (const unread of checks.unread ?? []) lines.push(`Not checked: ${unread}.`);
  return lines;
}

/**
 * The sign page's view of `request` as stored; `bytes`: exactly what the passkey signs (shown with
 * hidden characters marked); `names`: the people of peopleIn(request) and the requester as Slack names
 * them, where it could say.
 */
export function signRequestView(
  request: ApprovalRequest,
  bytes: string,
  names: Names = new Map(),
): SignRequestView {
  const amount = request.amount ? naira(request.amount) : undefined;
  const what = KIND_TITLE[request.kind];
  const figures: Figure[] = [
    ...(amount ? [{ label: 'Amount', value: amount }] : []),
    ...destinationFigures(request, names),
    ...(request.purpose ? [{ label: 'Purpose', value: request.purpose }] : []),
  ];
  const requester = personOf(request.requester, names);
  const checks = checkSentences(request);
  return {
    id: request.id,
    kind: request.kind,
    title: amount ? `${what} of ${amount}` : what,
    ...(amount ? { amount } : {}),
    environment: ENVIRONMENT[request.environment] ?? request.environment.toUpperCase(),
    round: request.round,
    requester: inertPerson(requester),
    figures: figures.map(inert),
    checks: [...hiddenCharactersSentences(figures, { requester, checks, bytes }), ...checks].map(
      markHiddenCharacters,
    ),
    bytes: markHiddenCharacters(bytes),
  };
}

/** A person with hidden characters in their name (and id, should one hold any) marked. */
export function inertPerson(person: Person): Person {
  const id = markHiddenCharacters(person.id);
  return person.name === undefined ? { id } : { id, name: markHiddenCharacters(person.name) };
}

/**
 * A figure with its hidden characters marked. Its words are the page's own and hold none, so marking
 * the whole marks exactly the names, addresses and reasons from outside within it.
 */
function inert(figure: Figure): Figure {
  return {
    label: figure.label,
    ...(figure.id ? { id: markHiddenCharacters(figure.id) } : {}),
    value: markHiddenCharacters(figure.value),
    ...(figure.mark ? { mark: markHiddenCharacters(figure.mark) } : {}),
  };
}
