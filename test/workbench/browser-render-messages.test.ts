// The page alone, in Chromium, on a stand-in for the workbench server (render-stub.ts): every kind of
// message the bot sends, built by the bot's own Block Kit builders. Checks what a person sees (mrkdwn,
// mentions, emoji, threads, ephemerals, edits, files, link buttons) and that outside text is never
// turned into HTML. Its tests are steps on one page, in file order.
import { describe, expect } from 'vitest';
import type { ApprovalRequest } from '../../src/approvals/types.js';
import { lagosTime } from '../../src/format/display.js';
import { approvalDm, placeNote } from '../../src/slack/approvals/blocks/dm.js';
import { approvalMessage } from '../../src/slack/approvals/blocks/message.js';
import { SHORT_DM_NOTE, shortApprovalMessages } from '../../src/slack/approvals/blocks/short-message.js';
import { contains, eventually, hidden, screenshot, shown, textOf } from '../support/browser.js';
import { it, log, message, NOW, request, run, TS } from './render-stub.js';

describe.skipIf(!run)('workbench page in Chromium (fixture state)', () => {
  it('shows the banner on every screen and the four people to act as', async ({ page, stub }) => {
    await contains(page.getByRole('banner'), 'LOCAL WORKBENCH — not Slack · SANDBOX');
    const acting = page.getByRole('combobox', { name: 'Acting as' });
    expect(await acting.locator('option').allTextContents()).toEqual([
      'Ada — treasury operations, requester',
      'Bola — approver',
      'Chidi — approver',
      'Dayo — reads only, not an approver',
    ]);
    // The select is too narrow for the longest role: it is written out under it.
    await contains(page.locator('.acting-role'), 'treasury operations, requester');
    await acting.selectOption({ label: 'Bola — approver' });
    await eventually(() => stub.stateReads.at(-1)).toBe('U0BOLA');
    await acting.selectOption({ label: 'Ada — treasury operations, requester' });
    await eventually(() => stub.stateReads.at(-1)).toBe('U0ADA');
    await screenshot(page, 'render-treasury');
  });

  it('renders mrkdwn as Slack does: marks, code, quotes, lists, links, mentions, entities, emoji', async ({
    page,
  }) => {
    const showcase = log(page).getByRole('article', { name: 'Ada' });
    await shown(showcase.locator('strong', { hasText: 'bold' }));
    await shown(showcase.locator('em', { hasText: 'italic' }));
    await shown(showcase.locator('s', { hasText: 'struck' }));
    await shown(showcase.locator('code', { hasText: /^code$/ }));
    await eventually(() => showcase.getByRole('link', { name: 'the docs' }).getAttribute('href')).toBe(
      'https://example.com/docs',
    );
    await contains(showcase, '@Bola');
    await contains(showcase, '#alerts');
    await contains(showcase, '@here');
    await contains(showcase, 'A & B <ok> ✅ snake_case_word 2*3*4');
    await eventually(() => textOf(showcase.locator('pre'))).toBe('line one\n  line two');
    await eventually(() => textOf(showcase.locator('blockquote'))).toBe('quoted line');
    expect(await showcase.getByRole('listitem').allTextContents()).toEqual(['first item', 'second item']);
    await eventually(() => showcase.getByRole('link', { name: 'not a link' }).count()).toBe(0);
    await contains(showcase, 'not a link');
  });

  it('sets a mention tight between the characters beside it: "(@Bola)", not "(@Bola )"', async ({ page }) => {
    const mention = log(page).getByRole('article', { name: 'Ada' }).locator('.mention', { hasText: '@Bola' });
    await shown(mention);
    // Where the name's own letters end and the parentheses' begin, as laid out on screen.
    const gaps = await mention.evaluate((span) => {
      const box = (node: Node, start: number, end: number) => {
        const range = document.createRange();
        range.setStart(node, start);
        range.setEnd(node, end);
        return range.getBoundingClientRect();
      };
      const name = span.firstChild as Text;
      const before = span.previousSibling as Text;
      const after = span.nextSibling as Text;
      const open = box(before, before.length - 1, before.length);
      const close = box(after, 0, 1);
      const letters = box(name, 0, name.length);
      return { left: letters.left - open.right, right: close.left - letters.right };
    });
    expect(gaps.left).toBeLessThan(0.5);
    expect(gaps.right).toBeLessThan(0.5);
  });

  it('never turns text from outside into HTML', async ({ page }) => {
    const message = log(page).getByRole('article', { name: 'Bola' });
    await contains(message, 'Name: <img src=x onerror="window.__injected=1"> and');
    await eventually(() => message.locator('img, b').count()).toBe(0);
    await shown(message.getByRole('link', { name: '<b>label</b>' }));
    expect(await page.evaluate(() => (window as { __injected?: number }).__injected)).toBeUndefined();
  });

  it('labels a link with its real target when its text names another address, as Slack does', async ({
    page,
  }) => {
    const message = log(page).getByRole('article', { name: 'Chidi' });
    await shown(message.getByRole('link').first());
    const drawn = await message
      .getByRole('link')
      .evaluateAll((all) => all.map((a) => [a.textContent, a.getAttribute('href')]));
    expect(drawn).toEqual([
      ['https://evil.example', 'https://evil.example'],
      ['https://evil.example/login', 'https://evil.example/login'],
      ['https://evil.example', 'https://evil.example'],
      ['bank.example', 'https://bank.example'],
      ['ada@bank.example', 'mailto:ada@bank.example'],
      ['View on explorer', 'https://example.com/tx/1'],
      ['Step 2: check', 'https://example.com/tx/2'],
      ['https://evil.example', 'https://evil.example'],
    ]);
  });

  it('marks the bot\'s private answers "Only visible to you" and draws their Block Kit', async ({ page }) => {
    const privately = log(page).getByRole('article', { name: 'cngn-desk (only visible to you)' });
    await eventually(() => privately.count()).toBe(2);
    await contains(privately.first(), 'Only visible to you');
    await shown(privately.first().locator('code', { hasText: '/cngn balance' }).first());
    // The second follows the first (folded under it) and is marked too.
    await contains(privately.nth(1), 'Only visible to you');
    await contains(privately.nth(1), '₦1,250,000.00');
    await contains(privately.nth(1), '🧪 SANDBOX');
  });

  it('shows an approval request with its fields, styled buttons, "(edited)" and a thread that opens', async ({
    page,
  }) => {
    await page.getByRole('button', { name: 'approvals' }).click();
    const request = log(page).getByRole('article').first();
    await shown(request.getByRole('heading', { name: 'Redemption to a bank account · SANDBOX' }));
    await contains(request, 'ADAEZE & SONS LTD');
    await contains(request, 'Requested by@Ada');
    await contains(request, '(edited)');
    await eventually(() => request.getByRole('button', { name: 'Approve' }).getAttribute('class')).toMatch(
      /primary/,
    );
    await eventually(() => request.getByRole('button', { name: 'Reject' }).getAttribute('class')).toMatch(
      /danger/,
    );
    await request.getByRole('button', { name: '2 replies' }).click();
    const thread = page.getByRole('complementary', { name: 'Thread' });
    await contains(thread, 'Approved by @Bola');
    await screenshot(page, 'render-approval-thread');
    await thread.getByRole('button', { name: 'Close thread' }).click();
    await hidden(thread);
  });

  it('sends a click as a block action of that message', async ({ page, stub }) => {
    await log(page).getByRole('button', { name: 'Approve' }).click();
    await eventually(() => stub.lastPost('/action')?.body).toEqual({
      user: 'U0ADA',
      container: { type: 'message', channel: 'C0APPROVALS', ts: TS(0) },
      block_id: 'approval.actions',
      action_id: 'approval.approve',
      value: 'AR-7Q2M9K4D1X:0',
    });
  });

  it("asks a button's confirm question first and sends nothing when denied", async ({ page, stub }) => {
    await page.getByRole('button', { name: 'cngn-desk' }).click();
    await eventually(() => log(page).getByRole('img', { name: 'Balance chart' }).count()).toBe(1);
    const before = stub.posted.length;
    await log(page).getByRole('button', { name: 'Delete everything' }).click();
    const confirm = page.getByRole('dialog', { name: 'Really delete?' });
    await contains(confirm, 'This cannot be undone.');
    await confirm.getByRole('button', { name: 'Keep' }).click();
    await hidden(confirm);
    expect(stub.posted.length).toBe(before);
    await log(page).getByRole('button', { name: 'Delete everything' }).click();
    await page
      .getByRole('dialog', { name: 'Really delete?' })
      .getByRole('button', { name: 'Delete' })
      .click();
    await eventually(() => stub.lastPost('/action')?.body.action_id).toBe('danger.go');
  });

  it('shows files the bot shared as cards with the name, size and a Download link', async ({
    page,
    stub,
  }) => {
    stub.change((s) => {
      s.messages.D0BOT?.push(
        message('D0BOT', 5, {
          text: 'Audit log export, 12 entries · SANDBOX',
          files: [
            {
              id: 'F0CSV',
              name: 'cngn-audit-sandbox-2026-11-01-to-2026-11-23.csv',
              title: 'Audit log (CSV)',
              size: 2_345,
              url: 'http://127.0.0.1:9/files/F0CSV/cngn-audit-sandbox-2026-11-01-to-2026-11-23.csv',
            },
            {
              id: 'F0JSONL',
              name: 'cngn-audit.jsonl',
              title: 'Audit log (JSON Lines)',
              size: 812,
              url: 'javascript:alert(1)',
            },
          ],
        }),
      );
    });
    await page.getByRole('button', { name: 'cngn-desk' }).click();
    const csv = log(page).locator('[data-file="F0CSV"]');
    await contains(csv, 'cngn-audit-sandbox-2026-11-01-to-2026-11-23.csv');
    await contains(csv, '2.3 KB CSV');
    await eventually(() => csv.getByRole('link', { name: 'Download' }).getAttribute('href')).toBe(
      'http://127.0.0.1:9/files/F0CSV/cngn-audit-sandbox-2026-11-01-to-2026-11-23.csv',
    );
    const jsonl = log(page).locator('[data-file="F0JSONL"]');
    await contains(jsonl, '812 B JSONL');
    // A link that is not http(s) is not offered.
    expect(await jsonl.getByRole('link').count()).toBe(0);
    await screenshot(page, 'render-files');
  });

  it("shows a delegate's request DM naming in whose place they approve, and until when", async ({
    page,
    stub,
  }) => {
    const until = '2026-11-30T23:00:00.000Z';
    const dm = approvalDm(request, NOW, 'U0DAYO', { delegator: 'U0CHIDI', until });
    stub.change((s) => {
      s.messages.D0BOT?.push(message('D0BOT', 7, dm));
    });
    await page.getByRole('button', { name: 'cngn-desk' }).click();
    const copy = log(page).locator('article', { hasText: 'asks for your approval' });
    await contains(
      copy,
      `@Ada asks for your approval (you approve in @Chidi's place until ${lagosTime(until)})`,
    );
    await contains(copy, 'AR-7Q2M9K4D1X');
    await copy.scrollIntoViewIfNeeded();
    await screenshot(page, 'render-delegate-dm');
  });

  it("shows a delegate's request DM in short, when Slack refuses the full one, still naming in whose place", async ({
    page,
    stub,
  }) => {
    const place = { delegator: 'U0CHIDI', until: '2026-11-30T23:00:00.000Z' };
    const dm = approvalDm(request, NOW, 'U0DAYO', place);
    const [short] = shortApprovalMessages(request, dm, undefined, SHORT_DM_NOTE, placeNote(place));
    if (!short) throw new Error('no short form');
    stub.change((s) => {
      s.messages.D0BOT?.push(message('D0BOT', 8, short));
    });
    const copy = log(page).locator('article', { hasText: 'shown in short' });
    await contains(copy, `You approve in @Chidi's place until ${lagosTime(place.until)}.`);
    await contains(copy, 'AR-7Q2M9K4D1X');
    await copy.scrollIntoViewIfNeeded();
    await screenshot(page, 'render-delegate-dm-short');
  });

  it('shows a hidden character in a name as a badge, and the request says so in words', async ({
    page,
    stub,
  }) => {
    const disguised = {
      ...request,
      id: 'AR-1B2C3D4E5F',
      display: { ...request.display, accountName: 'ADA OBI \u202eSESIRPRETNE' },
    } as ApprovalRequest;
    stub.change((s) => {
      s.messages.D0BOT?.push(message('D0BOT', 8, approvalMessage(disguised, NOW)));
    });
    await page.getByRole('button', { name: 'cngn-desk' }).click();
    const copy = log(page).locator('article', { hasText: 'AR-1B2C3D4E5F' });
    // Read left to right as sent, never turned around into "ADA OBI ENTERPRISES".
    await contains(copy, 'ADA OBI ⟨U+202E⟩SESIRPRETNE');
    const badge = copy.locator('.hidden-char');
    await eventually(() => textOf(badge)).toBe('⟨U+202E⟩');
    await eventually(() => badge.getAttribute('title')).toBe('A hidden character (U+202E) was here');
    await contains(copy, 'Look twice: the account name contains hidden characters');
    expect(await copy.evaluate((node) => node.textContent?.includes('\u202e'))).toBe(false);
    await copy.scrollIntoViewIfNeeded();
    await screenshot(page, 'render-hidden-characters');
  });

  it('shows "(edited)" of a follow-on message after its text, with no bare meta line', async ({
    page,
    stub,
  }) => {
    stub.change((s) => {
      s.messages.D0BOT?.push(message('D0BOT', 6, { text: 'A follow-on, changed since', edited: true }));
    });
    const followOn = log(page).locator('article', { hasText: 'A follow-on, changed since' });
    await contains(followOn, '(edited)');
    await hidden(followOn.locator('.meta'));
    await shown(followOn.locator('.edited'));
  });

  it("opens a button's url only when it is http(s) or mailto, never javascript:", async ({ page, stub }) => {
    await page.evaluate(() => {
      const opened: string[] = [];
      (window as unknown as { __opened: string[] }).__opened = opened;
      window.open = (url?: string | URL) => {
        opened.push(String(url));
        return null;
      };
    });
    const linkButton = (text: string, url: string) => ({
      type: 'button' as const,
      action_id: `link.${text}`,
      url,
      text: { type: 'plain_text' as const, text },
    });
    stub.change((s) => {
      s.messages.D0BOT?.push(
        message('D0BOT', 20, {
          text: 'Links',
          blocks: [
            {
              type: 'actions',
              block_id: 'links',
              elements: [
                linkButton('Bad link', 'javascript:window.__injected=1'),
                linkButton('Good link', 'https://example.com/report'),
              ],
            },
          ],
        }),
      );
    });
    await log(page).getByRole('button', { name: 'Bad link' }).click();
    await eventually(() => stub.lastPost('/action')?.body.action_id).toBe('link.Bad link');
    await log(page).getByRole('button', { name: 'Good link' }).click();
    await eventually(() => stub.lastPost('/action')?.body.action_id).toBe('link.Good link');
    expect(await page.evaluate(() => (window as unknown as { __opened: string[] }).__opened)).toEqual([
      'https://example.com/report',
    ]);
    expect(await page.evaluate(() => (window as { __injected?: number }).__injected)).toBeUndefined();
  });

  // The page is named so that it has loaded (and asked for whatever it asks for) by then.
  it('asks for no /favicon.ico (the icon is inline)', ({ stub, page: _ }) => {
    expect(stub.posted.filter((p) => p.path.includes('favicon'))).toEqual([]);
  });
});
