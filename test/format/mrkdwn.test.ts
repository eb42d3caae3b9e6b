import { describe, expect, it } from 'vitest';
import {
  escapeMrkdwn,
  explorerLink,
  hasHiddenCharacters,
  inertUrl,
  markDifferences,
  markHiddenCharacters,
  mentionChannel,
  mentionUser,
  slackPermalink,
} from '../../src/format/mrkdwn.js';

describe('mrkdwn from outside text', () => {
  it('escapes &, < and > so nothing mentions, pings or links', () => {
    expect(escapeMrkdwn('ADA <!channel> <!here> <@U123ABC> <https://evil.example|Approve>')).toBe(
      'ADA &lt;!channel&gt; &lt;!here&gt; &lt;@U123ABC&gt; &lt;https://evil.example|Approve&gt;',
    );
  });

  it('escapes an entity too, so it reads as typed rather than as the character', () => {
    expect(escapeMrkdwn('&amp;')).toBe('&amp;amp;');
    expect(escapeMrkdwn('Ada & Sons Ltd')).toBe('Ada &amp; Sons Ltd');
    expect(escapeMrkdwn("O'Brien <Lagos>")).toBe("O'Brien &lt;Lagos&gt;");
  });

  it('leaves amounts, ids, times and emoji codes as they are', () => {
    for (const own of [
      '₦1,250,000.50',
      'AR-0123456789',
      'CNGN_WD_0001',
      ':warning: :white_check_mark:',
      'Mon 23 Nov 2026, 09:05 WAT',
    ])
      expect(escapeMrkdwn(own)).toBe(own);
    expect(escapeMrkdwn(1500)).toBe('1500');
  });

  it('turns formatting marks into look-alikes that format nothing', () => {
    expect(escapeMrkdwn('*ADA* _OBI_ ~SONS~ `LTD`')).toBe('＊ADA＊ ＿OBI＿ ～SONS～ ｀LTD｀');
    expect(escapeMrkdwn('_*ADA*_')).toBe('＿＊ADA＊＿');
    // Between two letters or digits an underscore opens and closes nothing: it stays.
    expect(escapeMrkdwn('ADA_OBI a__b _x')).toBe('ADA_OBI a＿＿b ＿x');
  });

  it('shows every bidi control and invisible character as a marker', () => {
    expect(escapeMrkdwn('ADA OBI \u202eSESIRPRETNE')).toBe('ADA OBI ⟨U+202E⟩SESIRPRETNE');
    const hidden = [
      '\u200b',
      '\u200c',
      '\u200d',
      '\u2060',
      '\ufeff', // zero width
      '\u202a',
      '\u202b',
      '\u202c',
      '\u202d',
      '\u202e', // embeddings, overrides, pop
      '\u2066',
      '\u2067',
      '\u2068',
      '\u2069', // isolates
      '\u200e',
      '\u200f',
      '\u061c', // marks
      '\u00ad',
      '\u2028',
      '\u0000',
      '\u001b',
      '\u3164',
      '\u2800',
      '\u{e0041}',
      '\ufe0f',
      '\ud800',
    ];
    for (const character of hidden) {
      const code = (character.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0');
      expect(escapeMrkdwn(`A${character}B`), code).toBe(`A⟨U+${code}⟩B`);
      expect(markHiddenCharacters(`A${character}B`), code).toBe(`A⟨U+${code}⟩B`);
      expect(hasHiddenCharacters(`A${character}B`), code).toBe(true);
    }
    expect(escapeMrkdwn('\u2067ADA\u2069 *x*')).toBe('⟨U+2067⟩ADA⟨U+2069⟩ ＊x＊');
  });

  it('leaves Nigerian names, Yoruba and Igbo diacritics, other scripts and emoji as typed', () => {
    for (const name of [
      'Ngozi Chukwuemeka',
      'Adébáyọ̀ Ọlánrewájú',
      'Ụzọ Ọ̀nà',
      'Chinụ̄ Ńkèchí',
      'Aisha Bello-Yusuf',
      "O'Connor Ltd.",
      'عائشة بلو',
      '李娜',
      'Funmi 💸 ✅',
      'Family 👨‍👩‍👧 and 👩🏽‍💻, ❤️‍🔥, 🏳️‍🌈',
      'Keys 1️⃣ #️⃣, ❤️ and ☺︎',
      'Flag 🏴󠁧󠁢󠁥󠁮󠁧󠁿',
      'two\nlines\tand a tab, \r\n too',
    ]) {
      expect(escapeMrkdwn(name), name).toBe(name);
      expect(hasHiddenCharacters(name), name).toBe(false);
    }
    // A joiner or selector that joins no emoji is shown.
    expect(escapeMrkdwn('ADA\u200dOBI 👍\u200d')).toBe('ADA⟨U+200D⟩OBI 👍⟨U+200D⟩');
    expect(escapeMrkdwn('ADA\ufe0f 👍\ufe0f\ufe0f')).toBe('ADA⟨U+FE0F⟩ 👍\ufe0f⟨U+FE0F⟩');
    expect(escapeMrkdwn('x\u{e0041}\u{e0042}')).toBe('x⟨U+E0041⟩⟨U+E0042⟩');
  });

  it('links only checked explorer pages, with the label escaped', () => {
    expect(explorerLink('https://basescan.org/tx/0xabc', 'A & <B>')).toBe(
      '<https://basescan.org/tx/0xabc|A &amp; &lt;B&gt;>',
    );
    expect(explorerLink('https://evil.example/tx/0xabc', 'View')).toBeUndefined();
    expect(explorerLink('http://basescan.org/tx/0xabc', 'View')).toBeUndefined();
    expect(inertUrl('https://evil.example/<!channel>')).toBe('`https://evil.example/&lt;!channel&gt;`');
  });

  it('mentions Slack ids and shows anything else as text', () => {
    expect(mentionUser('U0123ABC')).toBe('<@U0123ABC>');
    expect(mentionUser('U1> <!channel')).toBe('U1&gt; &lt;!channel');
    expect(mentionChannel('C0APPROVALS')).toBe('<#C0APPROVALS>');
    expect(mentionChannel('C1|x> <!here')).toBe('C1|x&gt; &lt;!here');
  });
});

describe('a request message permalink', () => {
  it('links only what looks like a Slack message permalink', () => {
    expect(slackPermalink('https://treasury.slack.com/archives/C0APPROVALS/p1732350000000100', 'open')).toBe(
      '<https://treasury.slack.com/archives/C0APPROVALS/p1732350000000100|open>',
    );
    for (const url of [
      'https://evil.example/archives/C1/p1',
      'http://treasury.slack.com/archives/C1/p1',
      'https://treasury.slack.com.evil.example/archives/C1/p1',
      'https://treasury.slack.com/archives/C1/p1|Approve',
      undefined,
    ]) {
      expect(slackPermalink(url, 'open'), String(url)).toBeUndefined();
    }
  });
});

describe('differences marked in an address', () => {
  const T = '\u2009';

  it('bolds each differing run, set off by thin spaces so Slack draws bold inside the address', () => {
    const poisoned = '0xd9A1C3788D81257612E2581A6ea0aDa244853a91';
    expect(markDifferences(poisoned, [[6, 36]])).toBe(`0xd9A1${T}*C3788D81257612E2581A6ea0aDa244*${T}853a91`);
    expect(
      markDifferences('0xabc123456789def', [
        [5, 6],
        [11, 12],
      ]),
    ).toBe(`0xabc${T}*1*${T}23456${T}*7*${T}89def`);
  });

  it('draws runs at most 3 characters apart as one, so a differing stretch reads as one word', () => {
    const twoRuns = (gap: number): Array<[number, number]> => [
      [5, 6],
      [6 + gap, 7 + gap],
    ];
    expect(markDifferences('0xabc123def', twoRuns(1))).toBe(`0xabc${T}*123*${T}def`);
    expect(markDifferences('0xabc1234567def', twoRuns(3))).toBe(`0xabc${T}*12345*${T}67def`);
    expect(markDifferences('0xabc1234567def', twoRuns(4))).toBe(`0xabc${T}*1*${T}2345${T}*6*${T}7def`);
  });

  it('needs no thin space at either end of the text, and none beside a blank', () => {
    expect(markDifferences('abcdef', [[0, 2]])).toBe(`*ab*${T}cdef`);
    expect(markDifferences('abcdef', [[4, 6]])).toBe(`abcd${T}*ef*`);
    expect(markDifferences('abcdef', [[0, 6]])).toBe('*abcdef*');
    expect(markDifferences('ab cd ef', [[2, 6]])).toBe('ab *cd* ef');
    expect(markDifferences('ab  ef', [[2, 4]])).toBe('ab  ef');
  });

  it('tidies ranges out of order, overlapping, touching or outside the text', () => {
    expect(
      markDifferences('abcdefgh', [
        [5, 6],
        [1, 3],
        [2, 4],
        [4, 5],
        [-3, 0],
        [7, 99],
        [6, 6],
      ]),
    ).toBe(`a${T}*bcdefgh*`);
    expect(markDifferences('abcdef', [])).toBe('abcdef');
  });

  it('escapes outside text in and around the marks', () => {
    expect(
      markDifferences('<!channel> and *x* & y', [
        [0, 10],
        [15, 18],
      ]),
    ).toBe(`*&lt;!channel&gt;* and *＊x＊* &amp; y`);
    expect(markDifferences('a\u202eb', [[1, 2]])).toBe(`a${T}*⟨U+202E⟩*${T}b`);
    expect(hasHiddenCharacters(markDifferences('0xabc123def', [[5, 8]]))).toBe(false);
  });
});
