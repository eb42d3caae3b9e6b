import { describe, expect, it } from 'vitest';
import {
  escapeMrkdwn,
  explorerLink,
  inertUrl,
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

  it('leaves what the bot formats alone', () => {
    for (const own of [
      '₦1,250,000.50',
      'AR-0123456789',
      '`0x1234…abcd`',
      '*Amount*',
      ':warning:',
      'Mon 23 Nov 2026, 09:05 WAT',
    ])
      expect(escapeMrkdwn(own)).toBe(own);
    expect(escapeMrkdwn(1500)).toBe('1500');
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
