/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// Slack mrkdwn → DOM nodes. Text from the bot or a person is only ever set as text nodes: `&lt;b&gt;`
// shows as `<b>`, never becomes an element. What is written here is what no kept library does without
// innerHTML: slack-markdown returns an HTML string.
import { get as emoji } from 'node-emoji';
import { append, h } from './dom.js';

/** How `<@U…>` and `<#C…>` are shown: the names the page knows. */
export interface Names {
  user(id: string): string | undefined;
  channel(id: string): string | undefined;
}

const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"' };

function decodeEntities(text: string): string {
  return text.replace(/&(amp|lt|gt|quot);/g, (entity) => ENTITIES[entity] ?? entity);
}

/** `:white_check_mark:` → ✅ where the shortcode is known; unknown ones stay as typed. */
function emojify(text: string): string {
  return text.replace(/:([a-z0-9_+'-]+):/g, (whole, name: string) => emoji(name) ?? whole);
}

export const SAFE_URL = /^(https?:|mailto:)/i;

function angleToken(body: string, names: Names): Node {
  const bar = body.indexOf('|');
  const target = bar >= 0 ? body.slice(0, bar) : body;
  const label = bar >= 0 ? decodeEntities(body.slice(bar + 1)) : undefined;
  if (target.startsWith('@')) {
    const id = target.slice(1);
    return h('span', { class: 'mention', 'data-user': id }, `@${names.user(id) ?? label ?? id}`);
  }
  if (target.startsWith('#')) {
    const id = target.slice(1);
    return h('span', { class: 'mention' }, `#${names.channel(id) ?? label ?? id}`);
  }
  if (target.startsWith('!')) return specialToken(target.slice(1), label);
  return linkToken(decodeEntities(target), label);
}

/** `<!date^…|…>`, `<!subteam^…|…>`, `<!here>` and the like. */
function specialToken(special: string, label: string | undefined): Node {
  if (special.startsWith('date^')) return document.createTextNode(label ?? special);
  if (special.startsWith('subteam^')) return h('span', { class: 'mention' }, label ?? '@group');
  return h('span', { class: 'mention broadcast' }, `@${special}`);
}

/** A link whose scheme is safe, showing its label unless the label misleads; else plain text. */
function linkToken(url: string, label: string | undefined): Node {
  if (!SAFE_URL.test(url)) return document.createTextNode(label ?? url);
  const shown = label === undefined || misleads(label, url) ? url : label;
  return h('a', { href: url, title: url, target: '_blank', rel: 'noopener noreferrer' }, shown);
}

/** Text a reader takes for an address: `https://…`, `www.…`, `bank.example/login`, `ada@bank.example`. */
const ADDRESS_LIKE =
  /^(?:[a-z][a-z\d+.-]*:\/\/|(?:mailto|tel):|www\.|[^\s/@]+@[^\s@]+\.[^\s@]+$|[^\s/:@]+\.[a-z]{2,}(?:[/:?#]|$))/i;

function href(text: string): string | undefined {
  try {
    return new URL(text).href;
  } catch {
    return undefined;
  }
}

/**
 * A label that reads as an address other than the link's own target (`<https://evil.example|
 * https://bank.example>`): Slack then shows the real target, and so does the page. Words as labels
 * ("the docs") and an address written without its scheme (`<https://bank.example|bank.example>`) stay.
 */
function misleads(label: string, url: string): boolean {
  const text = label.trim();
  if (!ADDRESS_LIKE.test(text)) return false;
  const target = href(url);
  return ![text, `https://${text}`, `http://${text}`, `mailto:${text}`].some(
    (candidate) => target !== undefined && href(candidate) === target,
  );
}

// Formatting marks open after a non-word character and close before one, as Slack does, so
// snake_case and 2*3*4 stay as typed.
const INLINE =
  /`([^`\n]+)`|<([^<>\n]+)>|(?<![\p{L}\p{N}*])\*(?!\s)([^*\n]+?)(?<!\s)\*(?![\p{L}\p{N}])|(?<![\p{L}\p{N}_])_(?!\s)([^_\n]+?)(?<!\s)_(?![\p{L}\p{N}])|(?<![\p{L}\p{N}~])~(?!\s)([^~\n]+?)(?<!\s)~(?![\p{L}\p{N}])/gu;

/** The bot's marker for a hidden character in text from outside (format/hidden-characters.ts). */
const HIDDEN_MARKER = /⟨U\+[0-9A-F]{4,6}⟩/g;

/** Text as typed; each hidden-character marker as a badge that says what it stands for. */
function textNodes(text: string): Node[] {
  if (!text) return [];
  const shown = emojify(decodeEntities(text));
  const out: Node[] = [];
  let last = 0;
  for (const marker of shown.matchAll(HIDDEN_MARKER)) {
    const at = marker.index ?? 0;
    if (at > last) out.push(document.createTextNode(shown.slice(last, at)));
    const code = marker[0].slice(1, -1);
    out.push(h('span', { class: 'hidden-char', title: `A hidden character (${code}) was here` }, marker[0]));
    last = at + marker[0].length;
  }
  if (last < shown.length) out.push(document.createTextNode(shown.slice(last)));
  return out;
}

/** One line (or a span of it): code, links and mentions, bold, italic, strike, emoji. */
function inline(text: string, names: Names): Node[] {
  const out: Node[] = [];
  let last = 0;
  for (const match of text.matchAll(INLINE)) {
    const at = match.index ?? 0;
    out.push(...textNodes(text.slice(last, at)));
    last = at + match[0].length;
    const [, code, angle, bold, italic, strike] = match;
    if (code !== undefined) out.push(h('code', {}, decodeEntities(code)));
    else if (angle !== undefined) out.push(angleToken(angle, names));
    else if (bold !== undefined) out.push(h('strong', {}, inline(bold, names)));
    else if (italic !== undefined) out.push(h('em', {}, inline(italic, names)));
    else if (strike !== undefined) out.push(h('s', {}, inline(strike, names)));
  }
  out.push(...textNodes(text.slice(last)));
  return out;
}

const QUOTE = /^(?:&gt;|>)\s?/;
const BULLET = /^\s*(?:[•◦▪-]|\*(?=\s))\s+/;
const NUMBERED = /^\s*\d+[.)]\s+/;

type LineKind = 'quote' | 'bullet' | 'numbered' | 'text';

function kindOf(line: string): LineKind {
  if (QUOTE.test(line)) return 'quote';
  if (BULLET.test(line)) return 'bullet';
  if (NUMBERED.test(line)) return 'numbered';
  return 'text';
}

function linesBlock(lines: string[], names: Names): Node[] {
  const out: Node[] = [];
  let i = 0;
  while (i < lines.length) {
    const kind = kindOf(lines[i] ?? '');
    const group: string[] = [];
    while (i < lines.length && kindOf(lines[i] ?? '') === kind) {
      group.push(lines[i] ?? '');
      i += 1;
      if (kind === 'text') break;
    }
    out.push(groupNode(kind, group, names));
  }
  return out;
}

/** One group of lines of a kind: a quote, a list, or a single line (a blank one keeps its height). */
function groupNode(kind: ReturnType<typeof kindOf>, group: string[], names: Names): Node {
  if (kind === 'quote') {
    const quote = h('blockquote');
    group.forEach((line, n) => {
      if (n > 0) quote.appendChild(h('br'));
      append(quote, inline(line.replace(QUOTE, ''), names));
    });
    return quote;
  }
  if (kind === 'bullet' || kind === 'numbered') {
    const pattern = kind === 'bullet' ? BULLET : NUMBERED;
    return h(
      kind === 'bullet' ? 'ul' : 'ol',
      {},
      group.map((line) => h('li', {}, inline(line.replace(pattern, ''), names))),
    );
  }
  const line = group[0] ?? '';
  return line === '' ? h('span', { class: 'blank-line' }) : h('span', { class: 'line' }, inline(line, names));
}

/** A whole mrkdwn text: ``` code blocks ```, quotes, lists and lines. */
export function mrkdwn(text: string, names: Names): HTMLElement {
  const root = h('div', { class: 'mrkdwn' });
  const parts = text.split('```');
  parts.forEach((part, n) => {
    const isCode = n % 2 === 1 && n < parts.length - 1;
    if (isCode) {
      root.appendChild(h('pre', {}, decodeEntities(part.replace(/^\n/, ''))));
    } else if (part !== '') {
      const trimmed = n > 0 ? part.replace(/^\n/, '') : part;
      const cut = n < parts.length - 1 ? trimmed.replace(/\n$/, '') : trimmed;
      if (cut !== '' || parts.length === 1) append(root, linesBlock(cut.split('\n'), names));
    }
  });
  return root;
}

/** plain_text objects: entities decoded, emoji shortcodes shown when `emoji` is not false. */
export function plainText(object: { text: string; emoji?: boolean } | undefined): string {
  if (!object) return '';
  const text = decodeEntities(object.text);
  return object.emoji === false ? text : emojify(text);
}
