// Slack mrkdwn from text the bot does not control. Slack reads `<…>` as a mention (`<!channel>`,
// `<@U…>`) or a link (`<https://…|label>`), `&…;` as an entity, and `*bold*`, `_italic_`, `~strike~`
// and `` `code` `` as formatting; a bidi override or a zero-width character makes text read as other
// text. So every value that comes from a person, the service or a webhook goes through escapeMrkdwn
// before it enters a mrkdwn text, once. plain_text objects are shown as typed: outside text there only
// has its hidden characters marked (markHiddenCharacters). The bot's own markup is built here too.
import { checkedExplorerUrl } from './explorer.js';
import { markHiddenCharacters } from './hidden-characters.js';

export { hasHiddenCharacters, markHiddenCharacters } from './hidden-characters.js';

/**
 * Formatting characters, as their full-width forms (＊ ＿ ～ ｀): the same symbol to a reader, no
 * markup to Slack. An underscore between two letters or digits (snake_case, `:white_check_mark:`)
 * can neither open nor close italics and stays as typed.
 */
const FORMATTING = /[*~`]|(?<![\p{L}\p{N}])_|_(?![\p{L}\p{N}])/gu;
const FULL_WIDTH_OFFSET = 0xfee0;
const NEEDS_ESCAPING = /[&<>*_~`]/;

/**
 * Outside text as inert mrkdwn: hidden and bidi characters shown as `⟨U+202E⟩`; `*`, `_`, `~` and
 * `` ` `` turned into look-alikes that format nothing; `&`, `<`, `>` as entities, so it mentions, pings
 * and links nothing. Accents, other scripts and emoji are left as they are.
 */
export function escapeMrkdwn(value: string | number): string {
  const text = String(value);
  if (text.length < RECENT_SHORTEST || text.length > RECENT_LONGEST) return escaped(text);
  const recent = RECENT.get(text);
  if (recent !== undefined) return recent;
  if (RECENT.size >= RECENT_MAX) RECENT.clear();
  const out = escaped(text);
  RECENT.set(text, out);
  return out;
}

/**
 * The latest long values escaped: a message holds an outside value in several places (its text, its
 * notification, its copies in DMs and App Home) and is built again at each step of a request. Short
 * values cost less to escape than to look up; none longer than Slack shows is kept.
 */
const RECENT = new Map<string, string>();
const RECENT_MAX = 64;
const RECENT_SHORTEST = 64;
const RECENT_LONGEST = 4000;

function escaped(value: string): string {
  const text = markHiddenCharacters(value);
  if (!NEEDS_ESCAPING.test(text)) return text;
  return entities(
    text.replace(FORMATTING, (mark) => String.fromCharCode(mark.charCodeAt(0) + FULL_WIDTH_OFFSET)),
  );
}

/**
 * A sentence the bot wrote and keeps as plain text (an engine notice in a request's history, which the
 * audit log keeps as written): `&`, `<`, `>` as entities and hidden characters marked, its own code
 * spans kept. Never for a value from outside: that is escapeMrkdwn's.
 */
export function escapeOwnSentence(text: string): string {
  return entities(markHiddenCharacters(text));
}

/** A link target the bot checked: only what ends a link is escaped (Slack formats nothing in a URL). */
function entities(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** `<url|label>` for an explorer URL the bot checked (https, known host); undefined for any other. */
export function explorerLink(url: string | null | undefined, label: string): string | undefined {
  const checked = checkedExplorerUrl(url);
  return checked ? `<${entities(checked)}|${escapeMrkdwn(label)}>` : undefined;
}

/** https on the workspace's own slack.com host (Enterprise Grid and GovSlack included). */
const SLACK_PERMALINK =
  /^https:\/\/[a-z0-9-]+(\.[a-z0-9-]+)*\.slack(-gov)?\.com\/archives\/[A-Z0-9]+\/p\d+(\?[\w.=&-]*)?$/;

/** `<url|label>` for a message permalink Slack gave (chat.getPermalink); undefined for anything else. */
export function slackPermalink(url: string | null | undefined, label: string): string | undefined {
  return url && SLACK_PERMALINK.test(url) ? `<${entities(url)}|${escapeMrkdwn(label)}>` : undefined;
}

/** A link from outside that is not a checked explorer page: shown whole as inert text, never linked. */
export function inertUrl(url: string): string {
  const shown = url.length > 200 ? `${url.slice(0, 200)}…` : url;
  return `\`${escapeMrkdwn(shown.replace(/`/g, "'"))}\``;
}

const SLACK_ID = /^[A-Z0-9]{2,}$/;

/** Whether `id` is a Slack id (`U…`, `W…`, `C…`), not words standing where one would be. */
export const isSlackId = (id: string): boolean => SLACK_ID.test(id);

/** `<@U…>` for a Slack user id; anything else is shown as text and pings nobody. */
export function mentionUser(id: string): string {
  return SLACK_ID.test(id) ? `<@${id}>` : escapeMrkdwn(id);
}

// A mention as Slack markup, as policy lines were written before they held IDs as tokens, or a token:
// `@` and a user (`U…`, `W…`) or user group (`S…`) ID, standing alone.
const MENTION = /<@[UW][A-Z0-9]{2,}>|<!subteam\^S[A-Z0-9]{2,}>|(?<![<\w])@[UWS][A-Z0-9]{2,}(?![\w>])/g;

/** The markup of a mention as matched: a token becomes `<@U…>` or `<!subteam^S…>`, markup stays. */
function mentionMarkup(match: string): string {
  if (!match.startsWith('@')) return match;
  const id = match.slice(1);
  return id.startsWith('S') ? `<!subteam^${id}>` : `<@${id}>`;
}

/**
 * Text the bot wrote with people and user groups in it (a policy change's lines): each `@U…` or
 * `@S…` token becomes a mention Slack shows as a name, markup of older lines (`<@U…>`,
 * `<!subteam^S…>`) stays a mention, and everything else is escaped.
 */
export function escapeMrkdwnKeepingMentions(text: string): string {
  let out = '';
  let from = 0;
  for (const match of text.matchAll(MENTION)) {
    out += escapeMrkdwn(text.slice(from, match.index)) + mentionMarkup(match[0]);
    from = match.index + match[0].length;
  }
  return out + escapeMrkdwn(text.slice(from));
}

/** The same text with its `@U…`/`@S…` tokens as mention markup and nothing escaped (a CSV cell). */
export function mentionsAsMarkup(text: string): string {
  return text.replace(MENTION, mentionMarkup);
}

/** `<#C…>` for a Slack channel id; anything else is shown as text. */
export function mentionChannel(id: string): string {
  return SLACK_ID.test(id) ? `<#${id}>` : escapeMrkdwn(id);
}

/**
 * Thin spaces around each marked run. Slack starts and ends bold only next to a character that is no
 * letter or digit, so bold inside an address needs one there; a thin space is visible, shows where the
 * marked run starts and ends even where bold is not drawn (a notification), and is no hidden character.
 */
const RUN_EDGE = '\u2009';

/**
 * Marked runs this close are drawn as one: in a differing stretch, a character that happens to match
 * (1 in 16 for hex) would otherwise cut it into pieces the eye reads as separate words.
 */
const JOINED_GAP = 3;

/**
 * `text` (from outside: escaped) with the characters in `differs` ([start, end) ranges, as
 * findLookAlike gives them) in bold, each run set off by thin spaces: `0xd9A1 *C3788D…* 853a91`.
 * Runs at most 3 characters apart are drawn as one; ranges out of order, overlapping or outside the
 * text are tidied; no range gives the text escaped.
 */
export function markDifferences(text: string, differs: ReadonlyArray<readonly [number, number]>): string {
  let out = '';
  let at = 0;
  for (const [start, end] of tidyRanges(differs, text.length)) {
    out += escapeMrkdwn(text.slice(at, start));
    out += boldRun(text.slice(start, end), touches(text[start - 1]), touches(text[end]));
    at = end;
  }
  return out + escapeMrkdwn(text.slice(at));
}

/** Ranges inside [0, length), in order, with overlapping and close ones joined. */
function tidyRanges(
  ranges: ReadonlyArray<readonly [number, number]>,
  length: number,
): Array<[number, number]> {
  const inside = ranges
    .map(([start, end]): [number, number] => [Math.max(0, start), Math.min(length, end)])
    .filter(([start, end]) => start < end)
    .sort((a, b) => a[0] - b[0]);
  const joined: Array<[number, number]> = [];
  for (const [start, end] of inside) {
    const last = joined.at(-1);
    if (last && start - last[1] <= JOINED_GAP) last[1] = Math.max(last[1], end);
    else joined.push([start, end]);
  }
  return joined;
}

const touches = (neighbour: string | undefined) => neighbour !== undefined && !/\s/u.test(neighbour);

/** One marked run in bold; a thin space where it touches other characters (none needed at a blank). */
function boldRun(run: string, before: boolean, after: boolean): string {
  const [, lead = '', body = '', trail = ''] = /^(\s*)([\s\S]*?)(\s*)$/u.exec(run) ?? [];
  if (!body) return escapeMrkdwn(run);
  const open = before && !lead ? RUN_EDGE : lead;
  const close = after && !trail ? RUN_EDGE : trail;
  return `${escapeMrkdwn(open)}*${escapeMrkdwn(body)}*${escapeMrkdwn(close)}`;
}

/** Slack refuses a section or context text longer than 3000 characters; this leaves some room. */
export const MAX_MRKDWN_TEXT = 2900;

/** What ends every text cut to fit a Slack limit (mrkdwn or plain), so a reader knows there was more. */
export const CUT_MARK = '…(cut)';

/** The longest code closer a cut can need (a code block's fence). */
const LONGEST_CLOSER = 3;

const GRAPHEMES = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/**
 * An end at or before `end` that splits no character as a reader sees it (a grapheme): neither a
 * surrogate pair nor an emoji sequence joined by ZWJ, a flag's two regional indicators, a base and its
 * skin tone, or a letter and its combining accent.
 */
function wholeCharactersEnd(text: string, end: number): number {
  if (end <= 0 || end >= text.length || asciiBoundary(text, end)) return end;
  return segmentsOf(text).containing(end)?.index ?? end;
}

/**
 * Whether two ASCII characters meet at `end`: always a grapheme boundary but inside CR LF, since no
 * ASCII character extends, joins or prepends to another (Unicode's grapheme rules GB3 to GB13).
 */
function asciiBoundary(text: string, end: number): boolean {
  const before = text.charCodeAt(end - 1);
  const after = text.charCodeAt(end);
  return before < 0x80 && after < 0x80 && !(before === 0x0d && after === 0x0a);
}

/**
 * One cut asks for the graphemes of the same text several times (safeEnd runs until none moves); the
 * cut lets go of them when it ends, so no outside text is kept between cuts.
 */
let segmented: { text: string; segments: Intl.Segments } | undefined;
function segmentsOf(text: string): Intl.Segments {
  if (segmented?.text !== text) segmented = { text, segments: GRAPHEMES.segment(text) };
  return segmented.segments;
}

/** A hidden-character marker as markHiddenCharacters writes it; the longest is `⟨U+10FFFF⟩`. */
const HIDDEN_MARKER = /⟨U\+[0-9A-F]{4,6}⟩/y;
const LONGEST_MARKER = '⟨U+10FFFF⟩'.length;

/** An end at or before `end` outside any hidden-character marker (a `⟨` from outside is no marker). */
function outsideMarker(text: string, end: number): number {
  const from = text.lastIndexOf('⟨', end - 1);
  if (from < 0 || from <= end - LONGEST_MARKER) return end;
  HIDDEN_MARKER.lastIndex = from;
  const marker = HIDDEN_MARKER.exec(text);
  return marker && from + marker[0].length > end ? from : end;
}

/** An end at or before `end` outside an escape such as `&amp;` and outside a `<…|…>` link or mention. */
function outsideMarkup(text: string, end: number): number {
  let at = end;
  const amp = text.lastIndexOf('&', at - 1);
  if (amp >= 0 && amp >= at - 5 && !text.slice(amp, at).includes(';')) at = amp;
  const open = text.lastIndexOf('<', at - 1);
  if (open >= 0 && !text.slice(open, at).includes('>')) at = open;
  return at;
}

/**
 * An end at or before `end` that splits nothing Slack reads as one piece: an escape such as `&amp;`,
 * a surrogate pair, a `<…|…>` link or mention, a hidden-character marker such as ⟨U+202E⟩. Each step
 * only moves the end back, so they run again until none moves it: a step never undoes another.
 */
function safeEnd(text: string, end: number): number {
  let at = end;
  for (let before = -1; before !== at; ) {
    before = at;
    at = wholeCharactersEnd(text, outsideMarker(text, outsideMarkup(text, at)));
  }
  return at;
}

/** What closes a code block or code span the text leaves open ('' when it leaves none open). */
function codeCloser(text: string): string {
  const parts = text.split('```');
  if (parts.length % 2 === 0) return '```';
  const outside = parts.filter((_, i) => i % 2 === 0).join('');
  return outside.split('`').length % 2 === 0 ? '`' : '';
}

/**
 * mrkdwn as it will be sent (values from outside already escaped: an escape or a hidden-character
 * marker can make a value several times longer), cut to at most `max` characters with CUT_MARK at the
 * end; never inside an escape, a surrogate pair, a link or mention, and a code span or block the cut
 * leaves open is closed, so the rest of the message does not read as code.
 */
export function clipMrkdwn(text: string, max = MAX_MRKDWN_TEXT): string {
  if (text.length <= max) return text;
  const room = Math.max(0, max - CUT_MARK.length);
  let end = safeEnd(text, room);
  if (codeCloser(text.slice(0, end))) end = safeEnd(text, Math.max(0, room - LONGEST_CLOSER));
  const kept = text.slice(0, end);
  segmented = undefined;
  return `${kept}${codeCloser(kept)}${CUT_MARK}`;
}

/**
 * Plain text (a label, an option's text) cut to at most `max` characters with CUT_MARK, never inside a
 * character as a reader sees it (an emoji, its ZWJ sequence, a flag, a skin tone) nor inside a
 * hidden-character marker.
 */
export function clipPlain(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = Math.max(0, max - CUT_MARK.length);
  for (let before = -1; before !== end; ) {
    before = end;
    end = wholeCharactersEnd(text, outsideMarker(text, end));
  }
  segmented = undefined;
  return `${text.slice(0, end)}${CUT_MARK}`;
}
