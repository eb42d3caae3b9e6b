// Characters that show nothing, or reorder what is around them: zero-width spaces and joiners, the
// byte-order mark, bidi embeddings, overrides and isolates (`ADA OBI \u202eSESIRPRETNE` reads "ADA OBI
// ENTERPRISES"), other format and control characters, tag and variation characters, blank fillers.
// In text from outside each is replaced by a visible marker, `⟨U+202E⟩`, so a name reads as it is.
// What stays: line breaks and tabs, combining accents (Adébáyọ̀, Ụzọ), and the joiners and selectors
// that are part of an emoji (👨‍👩‍👧, ❤️, 🏳️‍🌈, a flag of England, 1️⃣). Pure functions.

/** One emoji as a part of a ZWJ sequence: a pictograph, with a skin tone or an emoji-style selector. */
const EMOJI_PART = String.raw`\p{Extended_Pictographic}(?:\p{Emoji_Modifier}|\uFE0F)?`;

/** Sequences in which a joiner, selector or tag is part of what is shown, kept as they are. */
const LEGITIMATE = [
  String.raw`\r\n`,
  // 👨‍👩‍👧: emoji joined by U+200D.
  String.raw`${EMOJI_PART}(?:\u200D${EMOJI_PART})+`,
  // A subdivision flag: 🏴, tag letters, the cancel tag.
  String.raw`\u{1F3F4}[\u{E0020}-\u{E007E}]+\u{E007F}`,
  // 1️⃣ and #️⃣ (not *️⃣: an asterisk stays a character that formatting would read).
  String.raw`[#0-9]\uFE0F?\u20E3`,
  // ❤️ / ☺︎: a pictograph in emoji or text style.
  String.raw`\p{Extended_Pictographic}[\uFE0E\uFE0F]`,
].join('|');

/**
 * Controls but line feed and tab, format characters (bidi controls, zero-width, tags), lone
 * surrogates, line and paragraph separators, every default-ignorable code point (variation
 * selectors, Hangul fillers, soft hyphen …) and the blank braille pattern.
 */
const HIDDEN = String.raw`(?![\n\t])[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}\u2800]`;

const SCAN = new RegExp(`(${LEGITIMATE})|${HIDDEN}`, 'gu');
const ANY_HIDDEN = new RegExp(HIDDEN, 'u');

/** `⟨U+202E⟩` for U+202E. */
function hiddenCharacterMarker(codePoint: number): string {
  return `⟨U+${codePoint.toString(16).toUpperCase().padStart(4, '0')}⟩`;
}

/** The text with every hidden or reordering character shown as a marker; the rest as it came. */
export function markHiddenCharacters(text: string): string {
  if (!ANY_HIDDEN.test(text)) return text;
  return text.replace(SCAN, (whole, legitimate: string | undefined) =>
    legitimate !== undefined ? whole : hiddenCharacterMarker(whole.codePointAt(0) ?? 0),
  );
}

/** Whether the text holds a character markHiddenCharacters would mark. */
export function hasHiddenCharacters(text: string | null | undefined): boolean {
  if (!text || !ANY_HIDDEN.test(text)) return false;
  for (const match of text.matchAll(SCAN)) if (match[1] === undefined) return true;
  return false;
}

/**
 * How many characters of the text a person sees: hidden characters, controls and blanks left out
 * (a joined emoji, a flag or a keycap counts as its parts shown). `\u200b\u200b\u200b` sees none.
 */
export function visibleLength(text: string): number {
  const shown = text.replace(SCAN, (_whole, legitimate: string | undefined) => legitimate ?? '');
  return [...shown.replace(/\p{Cc}|\p{White_Space}|\u200D|\uFE0E|\uFE0F/gu, '')].length;
}
