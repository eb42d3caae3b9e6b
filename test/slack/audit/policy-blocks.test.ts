// The approvals channel's notice of a policy entry: mentions stay mentions, anything else in a line is
// inert text, and the entry's place in the chain closes it.
import { expect, it } from 'vitest';
import type { AuditEntry } from '../../../src/approvals/types.js';
import { escapeMrkdwnKeepingMentions, mentionsAsMarkup } from '../../../src/format/mrkdwn.js';
import { policyChangedMessage } from '../../../src/slack/audit/policy-blocks.js';

it('keeps user and group mentions and escapes everything else', () => {
  expect(escapeMrkdwnKeepingMentions('approvers: +<@U0EFE> −<!subteam^S0TREASURY> <!channel> *x*')).toBe(
    'approvers: +<@U0EFE> −<!subteam^S0TREASURY> &lt;!channel&gt; ＊x＊',
  );
});

it('shows the ID tokens of newer lines as mentions, and nothing else that looks like one', () => {
  expect(escapeMrkdwnKeepingMentions('approvers: +@U0EFE −@S0TREASURY, @W0ADA')).toBe(
    'approvers: +<@U0EFE> −<!subteam^S0TREASURY>, <@W0ADA>',
  );
  expect(escapeMrkdwnKeepingMentions('a@U0EFE @U0EFEx @channel')).toBe('a@U0EFE @U0EFEx @channel');
  expect(mentionsAsMarkup('members of @S0TREASURY: +@U0EFE −<@U0BOLA>')).toBe(
    'members of <!subteam^S0TREASURY>: +<@U0EFE> −<@U0BOLA>',
  );
});

it('shows an old line and its new form alike', () => {
  const shown = (line: string) =>
    JSON.stringify(policyChangedMessage({ ...ENTRY, policy: { changes: [line] } }, 'LIVE').blocks);
  expect(shown('approvers: +@U0EFE −@S0TREASURY')).toBe(shown('approvers: +<@U0EFE> −<!subteam^S0TREASURY>'));
});

const ENTRY: AuditEntry = {
  at: '2026-11-26T10:00:00.000Z',
  kind: 'policy',
  action: 'policy-changed',
  actor: 'system',
  subject: 'settings at start',
  seq: 41,
};

it('lists the lines and says where the chain holds them', () => {
  const entry: AuditEntry = {
    at: '2026-11-26T10:00:00.000Z',
    kind: 'policy',
    action: 'policy-changed',
    actor: 'system',
    subject: 'settings at start',
    seq: 41,
    policy: { changes: ['tiers: 0:1,1000000:2 → 0:1,500000:2', 'approvers: +<@U0EFE> <b>'] },
  };
  const message = policyChangedMessage(entry, 'LIVE');
  expect(message.text).toBe(':scroll: *Approval policy changed* · LIVE: 2 changes');
  const shown = JSON.stringify(message.blocks);
  expect(shown).toContain('• tiers: 0:1,1000000:2 → 0:1,500000:2\\n• approvers: +<@U0EFE> &lt;b&gt;');
  expect(shown).toContain('Recorded in the audit chain as #41');
});

it('keeps every section within Slack’s 3000 characters and the message within 50 blocks', () => {
  const texts = (changes: string[]) =>
    (policyChangedMessage({ ...ENTRY, policy: { changes } }, 'LIVE').blocks ?? []).map((b) =>
      b.type === 'section' ? (b.text?.text ?? '') : '',
    );
  const everyone = Array.from({ length: 400 }, (_, i) => `@U0${String(i).padStart(6, '0')}`);
  const long = texts([`members of @S0TREASURY: ${everyone.join(', ')}`]);
  expect(long[1]?.length).toBeLessThanOrEqual(3000);
  expect(long[1]).toMatch(
    /^• members of <!subteam\^S0TREASURY>: <@U0000000>, .*<@U0\d{6}>,? … \(\d+ characters more/,
  );
  const many = policyChangedMessage(
    { ...ENTRY, policy: { changes: Array(120).fill('x'.repeat(2000)) } },
    'LIVE',
  );
  expect(many.blocks?.length).toBeLessThanOrEqual(50);
  expect(many.blocks?.at(-1)?.type).toBe('context');
  const shown = texts(Array(120).fill('x'.repeat(2000)));
  expect(shown.every((t) => t.length <= 3000)).toBe(true);
  expect(shown.join('\n')).toContain('… and 73 more lines');
});

it('cuts a long line without spaces at the room it has, never inside a mention or an escape', () => {
  const first = (changes: string[]) => {
    const block = policyChangedMessage({ ...ENTRY, policy: { changes } }, 'LIVE').blocks?.[1];
    return block?.type === 'section' ? (block.text?.text ?? '') : '';
  };
  const plain = first([`members: ${'y'.repeat(4000)}`]);
  expect(plain.length).toBeGreaterThan(2500);
  expect(plain.length).toBeLessThanOrEqual(3000);
  expect(plain).toMatch(/^• members: y+ … \(\d+ characters more/);
  const mentions = first([`members of @S0TREASURY: ${'@U0EFE,'.repeat(700)}`]);
  expect(mentions.length).toBeGreaterThan(2500);
  expect(mentions.length).toBeLessThanOrEqual(3000);
  expect(mentions).toMatch(/^• members of <!subteam\^S0TREASURY>: (<@U0EFE>,)+ … \(\d+ characters more/);
  const escapes = first([`note: ${'a<'.repeat(1500)}`]);
  expect(escapes).toMatch(/^• note: (a&lt;)+a? … \(\d+ characters more/);
  const emoji = first([`notes: ${'🙂'.repeat(1500)}`]);
  expect(emoji).toMatch(/^• notes: (🙂)+ … \(\d+ characters more/u);
});
