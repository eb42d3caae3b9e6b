// Text from outside is inert: every builder, fed mass mentions, a user mention, a link whose text is
// not its target and an entity in every field that comes from a person, the service or a webhook,
// hands Slack nothing it would turn into a ping or a link; ordinary names still read as typed.
import { describe, expect, it } from 'vitest';
import type { ApprovalRequest } from '../../../src/approvals/types.js';
import { transactionSchema } from '../../../src/cngn/schemas.js';
import { approvalMessage } from '../../../src/slack/approvals/blocks/message.js';
import { txDetailMessage } from '../../../src/slack/reads/blocks.js';
import { type Built, builtTexts, everyBuilder, fallbackAlert } from './every-builder.js';
import { NOW, requestsOf, slackTexts, withoutOwnMarkup } from './support.js';

/** Everything at once: a mass mention of each kind, a person, a spoofed link, an entity. */
const HOSTILE = 'ADA <!channel> <!here> <@U123ABC> <https://evil.example|Approve> &amp;Z';
describe('text from outside reaches Slack inert', () => {
  it('turns no outside value into a mention, a ping or a link, in any field of any builder', async () => {
    const built: Built[] = [];
    // Whole, and short enough that shortened forms (masked accounts, short hashes) end in markup.
    for (const hostile of [HOSTILE, '<!channel>']) {
      built.push(...everyBuilder(hostile), { name: 'alert fallback', built: await fallbackAlert(hostile) });
    }
    const { mrkdwn } = builtTexts(built);
    const leaks: string[] = [];
    for (const { name, text } of mrkdwn) {
      const left = withoutOwnMarkup(text);
      // No < or > survives but the bot's own mentions and checked explorer links.
      if (/[<>]/.test(left)) leaks.push(`${name}: ${text}`);
      // The entity in the input is shown as typed (escaped once), never as `&` …
      if (/&amp;Z/.test(text.replace(/&amp;amp;Z/g, ''))) leaks.push(`${name} (entity left raw): ${text}`);
      // … and never escaped twice.
      if (text.includes('&amp;amp;amp;')) leaks.push(`${name} (escaped twice): ${text}`);
    }
    expect([...new Set(leaks)].slice(0, 10)).toEqual([]);
    // The fixtures really went through: the hostile value is shown, escaped, in the messages.
    const all = mrkdwn.map(({ text }) => text).join('\n');
    expect(all).toContain(
      'ADA &lt;!channel&gt; &lt;!here&gt; &lt;@U123ABC&gt; &lt;https://evil.example|Approve&gt; &amp;amp;Z',
    );
  });

  it('keeps the bot’s own mentions and links to known explorers working', () => {
    const [withdraw] = requestsOf('x', 'https://basescan.org/tx/0xabc');
    const sent = approvalMessage({ ...(withdraw as ApprovalRequest), state: 'sent' }, NOW);
    const shown = slackTexts(sent).mrkdwn.join('\n');
    expect(shown).toContain('<@UREQ>');
    expect(shown).toContain('(<@UAPPROVERA>)');
    expect(shown).toContain('<https://basescan.org/tx/0xabc|View on the explorer>');
    const tx = transactionSchema.parse({
      trx_ref: 'CNGN-WD-1',
      trx_type: 'withdraw',
      amount: '1500',
      network: 'base',
      base_trx_hash: `0x${'1'.repeat(64)}`,
      explorer_link: `https://basescan.org/tx/0x${'1'.repeat(64)}`,
      status: 'completed',
    });
    const detail = slackTexts(txDetailMessage(tx, 'live')).mrkdwn.join('\n');
    expect(detail).toContain(`<https://basescan.org/tx/0x${'1'.repeat(64)}|0x1111…1111>`);
    expect(detail).toContain(`<https://basescan.org/tx/0x${'1'.repeat(64)}|Open in block explorer>`);
  });
});

describe('ordinary names still read as typed', () => {
  const NAMES = ['Ada & Sons Ltd', "O'Brien <Lagos>"];

  it.each(NAMES)('shows %s escaped exactly once in mrkdwn and as typed in plain text', async (name) => {
    const escaped = name.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
    const built = [...everyBuilder(name), { name: 'alert fallback', built: await fallbackAlert(name) }];
    const { mrkdwn, plain } = builtTexts(built);
    const problems: string[] = [];
    for (const { name: builder, text } of mrkdwn) {
      if (text.includes('&amp;amp;') || text.includes('&amp;lt;') || text.includes('&amp;gt;'))
        problems.push(`${builder} (escaped twice): ${text}`);
      if (/[<>]/.test(withoutOwnMarkup(text)) || /&(?!amp;|lt;|gt;)/.test(text))
        problems.push(`${builder} (raw): ${text}`);
    }
    for (const { name: builder, text } of plain) {
      if (/&(amp|lt|gt);/.test(text)) problems.push(`${builder} (escaped plain text): ${text}`);
    }
    expect([...new Set(problems)].slice(0, 10)).toEqual([]);
    const all = mrkdwn.map(({ text }) => text).join('\n');
    expect(all).toContain(escaped);
    // The approval message reads the name as the bank gave it, with the amount as the bot wrote it.
    const [, redeem] = requestsOf(name, 'https://basescan.org/tx/0xabc');
    const message = approvalMessage(redeem as ApprovalRequest, NOW);
    const fields = slackTexts(message).mrkdwn.join('\n');
    expect(fields).toContain(`*Account name (resolved)*\n${escaped}`);
    expect(fields).toContain('₦1,250,000.50');
    expect(message.text).toBe(
      'AR-0123456789 · Redemption to a bank account · ₦1,250,000.50: Waiting for approval',
    );
  });
});
