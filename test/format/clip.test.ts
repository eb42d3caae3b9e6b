// A text cut to fit a Slack limit reads as a cut text: it ends with the one cut mark, and the cut never
// leaves half an escape, half an emoji, half a link or mention, or a code span that swallows the rest.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CUT_MARK, clipMrkdwn, clipPlain, escapeMrkdwn, MAX_MRKDWN_TEXT } from '../../src/format/mrkdwn.js';
import { assertFuzz } from '../support/fuzz-inputs.js';

/** Every cut point from `from` to `to` characters, so one of them lands in each awkward place. */
const cutsOf = (text: string, from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => ({ max: from + i, clipped: clipMrkdwn(text, from + i) }));

describe('clipMrkdwn', () => {
  it('keeps a text that fits as it is', () => {
    expect(clipMrkdwn('short', 10)).toBe('short');
  });

  it('never cuts inside an escape', () => {
    const text = escapeMrkdwn('&<>'.repeat(40));
    for (const { max, clipped } of cutsOf(text, 20, 40)) {
      expect(clipped.length).toBeLessThanOrEqual(max);
      expect(clipped.endsWith(CUT_MARK)).toBe(true);
      expect(clipped.slice(0, -CUT_MARK.length)).toMatch(/^(&amp;|&lt;|&gt;)*$/);
    }
  });

  it('never cuts between the halves of an emoji', () => {
    for (const { clipped } of cutsOf('😀'.repeat(40), 20, 40)) {
      expect(clipped.slice(0, -CUT_MARK.length)).toMatch(/^(😀)*$/u);
    }
  });

  it('never cuts inside a link or a mention', () => {
    const text = 'Approved by <@U0123ABCDEF> see <https://basescan.org/tx/0xabc|the transaction> '.repeat(5);
    for (const { max, clipped } of cutsOf(text, 20, 120)) {
      expect(clipped.length).toBeLessThanOrEqual(max);
      const kept = clipped.slice(0, -CUT_MARK.length);
      expect(kept.split('<').length).toBe(kept.split('>').length);
    }
  });

  it('never cuts inside a hidden-character marker', () => {
    const text = `${'a'.repeat(20)}⟨U+202E⟩b⟨U+E0041⟩${'c'.repeat(20)}`;
    for (const { max, clipped } of cutsOf(text, 20, 50)) {
      expect(clipped.length).toBeLessThanOrEqual(max);
      expect(clipped.slice(0, -CUT_MARK.length)).toMatch(/^a*(⟨U\+202E⟩(b(⟨U\+E0041⟩c*)?)?)?$/);
    }
  });

  it('keeps nearly all of a text holding a ⟨ from outside, which is no marker', () => {
    const text = escapeMrkdwn(`Bank ⟨ ${'word '.repeat(1000)}`);
    expect(clipMrkdwn(text).length).toBeGreaterThan(MAX_MRKDWN_TEXT - 10);
  });

  it('never leaves half a link whose label holds a ⟨ from outside', () => {
    const link = `<https://basescan.org/tx/0x1|${escapeMrkdwn('a⟨b')}>`;
    const text = `Approved by <@U0123ABCDEF> ${link} ${'x'.repeat(3000)}`;
    for (const { max, clipped } of [...cutsOf(text, 20, 120), { max: 2900, clipped: clipMrkdwn(text) }]) {
      expect(clipped.length).toBeLessThanOrEqual(max);
      const kept = clipped.slice(0, -CUT_MARK.length);
      expect(kept.split('<').length).toBe(kept.split('>').length);
    }
    expect(clipMrkdwn(text).length).toBeGreaterThan(MAX_MRKDWN_TEXT - 10);
  });

  it('closes a code span or a code block it cut open, so the rest does not read as code', () => {
    const span = `Reference \`${'a'.repeat(60)}\` then more`;
    for (const { max, clipped } of cutsOf(span, 15, 70)) {
      expect(clipped.length).toBeLessThanOrEqual(max);
      expect(clipped.split('`').length % 2).toBe(1);
    }
    const block = `Raw:\n\`\`\`${'b'.repeat(60)}\`\`\`\nafter`;
    for (const { max, clipped } of cutsOf(block, 12, 70)) {
      expect(clipped.length).toBeLessThanOrEqual(max);
      expect(clipped.split('```').length % 2).toBe(1);
    }
  });
});

describe('clipPlain', () => {
  it('cuts plain text with the same mark, never between the halves of an emoji', () => {
    expect(clipPlain('abc', 75)).toBe('abc');
    for (let max = 10; max < 20; max++) {
      const clipped = clipPlain('😀'.repeat(40), max);
      expect(clipped.length).toBeLessThanOrEqual(max);
      expect(clipped).toMatch(new RegExp(`^(😀)*${CUT_MARK.replace(/[()]/g, '\\$&')}$`, 'u'));
    }
  });

  it('never cuts plain text inside a hidden-character marker', () => {
    const text = `${'a'.repeat(20)}⟨U+202E⟩b⟨U+E0041⟩${'c'.repeat(20)}`;
    for (let max = 20; max <= 50; max++) {
      const clipped = clipPlain(text, max);
      expect(clipped.length).toBeLessThanOrEqual(max);
      expect(clipped.slice(0, -CUT_MARK.length)).toMatch(/^a*(⟨U\+202E⟩(b(⟨U\+E0041⟩c*)?)?)?$/);
    }
  });
});

describe('clipPlain on characters made of several code points', () => {
  /** What a reader sees as one character, each several UTF-16 units long. */
  const UNITS = [
    ['a family (ZWJ sequence)', '\u{1F468}\u200D\u{1F469}\u200D\u{1F467}\u200D\u{1F466}'],
    ['a flag (two regional indicators)', '\u{1F1F3}\u{1F1EC}'],
    ['a thumb with a skin tone', '\u{1F44D}\u{1F3FD}'],
    ['a keycap', '1\uFE0F\u20E3'],
    ['a letter and its combining accent', 'e\u0301'],
    ['a rainbow flag (ZWJ with a variation selector)', '\u{1F3F3}\uFE0F\u200D\u{1F308}'],
    ['a line break as CR LF', '\r\n'],
  ] as const;
  const graphemes = (text: string) =>
    [...new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(text)].map((s) => s.segment);

  it.each(UNITS)('never cuts inside %s', (_, unit) => {
    const text = unit.repeat(30);
    for (let max = CUT_MARK.length; max <= 40; max++) {
      const clipped = clipPlain(text, max);
      expect(clipped.length).toBeLessThanOrEqual(max);
      expect(clipped.endsWith(CUT_MARK)).toBe(true);
      expect(graphemes(clipped.slice(0, -CUT_MARK.length)).every((g) => g === unit)).toBe(true);
    }
  });

  it('keeps whole characters of any mix of them, cut anywhere', async () => {
    const piece = fc.constantFrom('a', ' ', '😀', '⟨U+202E⟩', ...UNITS.map(([, unit]) => unit));
    await assertFuzz(
      fc.property(fc.array(piece, { maxLength: 40 }), fc.nat(120), (pieces, extra) => {
        const text = pieces.join('');
        const max = CUT_MARK.length + (extra % (text.length + 1));
        const clipped = clipPlain(text, max);
        expect(clipped.length).toBeLessThanOrEqual(max);
        const kept = clipped === text ? text : clipped.slice(0, -CUT_MARK.length);
        expect(text.startsWith(kept)).toBe(true);
        // The cut falls where the whole text has a boundary between two characters.
        let at = 0;
        const ends = new Set([0, ...graphemes(text).map((g) => (at += g.length))]);
        expect(ends.has(kept.length)).toBe(true);
      }),
      500,
    );
  });
});
