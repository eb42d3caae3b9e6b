// The whole product through the workbench, no browser: what a person does on the page (plain HTTP to
// the workbench's routes) reaches the real bot as signed Slack requests, and what the bot says comes
// back through the workbench's Web API into the state the page renders.
import { describe, expect } from 'vitest';
import {
  APPROVAL_ACTIONS_BLOCK,
  APPROVE_ACTION,
  REJECT_ACTION,
} from '../../src/slack/approvals/blocks/message.js';
import { REJECT, REJECT_VIEW, WITHDRAW, WITHDRAW_VIEW } from '../../src/slack/approvals/blocks/modals.js';
import { REVIEW_VIEW } from '../../src/slack/approvals/blocks/review.js';
import { TX_PAGE_ACTION } from '../../src/slack/reads/blocks.js';
import type { WorkbenchMessage, WorkbenchModal } from '../../src/workbench/protocol.js';
import {
  ADA,
  ALERTS,
  APPROVALS,
  type Bench,
  BOLA,
  CHIDI,
  DAYO,
  messagesIn,
  TREASURY,
  benchTest as test,
  wording,
} from '../support/workbench-bench.js';

const DEST = '0x52908400098527886E0F7030069857D2E4169EE7';

describe('a command typed in #treasury', () => {
  test("answers Ada privately: the balance is in Ada's state and not in Dayo's", async ({ bench }) => {
    const { status, answer } = await bench.post('/command', {
      user: ADA,
      channel: TREASURY,
      text: '/cngn balance',
    });
    expect(status).toBe(200);
    expect(answer.ok).toBe(true);
    const reply = await bench.waitFor(
      ADA,
      (s) => messagesIn(s, TREASURY).find((m) => wording(m).includes('Balance')),
      'the balance answer',
    );
    expect(reply.visibleTo).toBe(ADA);
    expect(reply.bot).toBe(true);
    expect(wording(reply)).toMatch(/1,250,000\.00/);
    expect(wording(reply)).toMatch(/SANDBOX/);
    const dayo = await bench.state(DAYO);
    expect(messagesIn(dayo, TREASURY).some((m) => m.ts === reply.ts)).toBe(false);
  });

  test('refuses a command other than /cngn the way Slack does, and an unknown user', async ({ bench }) => {
    const other = await bench.post('/command', { user: ADA, channel: TREASURY, text: '/pay 100' });
    expect(other.status).toBe(422);
    expect(other.answer.error).toMatch(/\/pay is not a valid command/);
    const nobody = await bench.post('/command', { user: 'U0EVE', channel: TREASURY, text: '/cngn help' });
    expect(nobody.status).toBe(400);
    expect(nobody.answer.error).toMatch(/^user: /);
  });
});

describe('a private answer with buttons', () => {
  test('Next on the transaction list replaces the same private message in place', async ({ bench }) => {
    await bench.post('/command', { user: DAYO, channel: TREASURY, text: '/cngn tx' });
    const list = await bench.waitFor(
      DAYO,
      (s) =>
        messagesIn(s, TREASURY).find(
          (m) => m.visibleTo === DAYO && wording(m).includes(`${TX_PAGE_ACTION}.next`),
        ),
      'the transaction list',
    );
    const { answer } = await bench.post('/action', {
      user: DAYO,
      container: { type: 'message', channel: TREASURY, ts: list.ts },
      block_id: TX_PAGE_ACTION,
      action_id: `${TX_PAGE_ACTION}.next`,
    });
    expect(answer.ok).toBe(true);
    const next = await bench.waitFor(
      DAYO,
      (s) =>
        messagesIn(s, TREASURY).find(
          (m) => m.ts === list.ts && m.edited && wording(m).includes(`${TX_PAGE_ACTION}.previous`),
        ),
      'page 2 in place',
    );
    expect(next.visibleTo).toBe(DAYO);
    expect(
      messagesIn(await bench.state(DAYO), TREASURY).filter(
        (m) => m.visibleTo === DAYO && /tx\.page/.test(wording(m)),
      ),
    ).toHaveLength(1);
    // Someone else cannot click a message only Dayo sees.
    const other = await bench.post('/action', {
      user: ADA,
      container: { type: 'message', channel: TREASURY, ts: list.ts },
      block_id: TX_PAGE_ACTION,
      action_id: `${TX_PAGE_ACTION}.next`,
    });
    expect(other.answer).toMatchObject({ ok: false, error: 'That message is no longer there' });
  });
});

describe('a withdrawal from filing to completed', () => {
  const openModal = (bench: Bench, user: string) =>
    bench.waitFor(
      user,
      (s) =>
        s.modals.find(
          (m) => m.view.callback_id === WITHDRAW_VIEW && m.view.blocks.some((b) => b.type === 'input'),
        ),
      'the withdrawal form',
    );
  const approvalMessage = (id: string) => (m: WorkbenchMessage) =>
    !m.visibleTo && !m.thread_ts && wording(m).includes(id);

  let requestId = '';
  let messageTs = '';

  test('Ada files through the modal; a bad address is refused inline first', async ({ bench }) => {
    await bench.post('/command', { user: ADA, channel: TREASURY, text: '/cngn withdraw' });
    const modal: WorkbenchModal = await openModal(bench, ADA);
    const network = modal.view.blocks
      .flatMap((b) => ('element' in b && b.block_id === WITHDRAW.network ? [b.element] : []))
      .flatMap((e) => ('options' in e && e.options ? e.options : []))[0]?.value;
    expect(network).toBeTruthy();

    const values = (address: string) => ({
      [WITHDRAW.amount]: { [WITHDRAW.amount]: '1500' },
      [WITHDRAW.network]: { [WITHDRAW.network]: network ?? '' },
      [WITHDRAW.address]: { [WITHDRAW.address]: address },
      [WITHDRAW.save]: { [WITHDRAW.save]: [] },
      [WITHDRAW.purpose]: { [WITHDRAW.purpose]: 'Supplier payout INV-2231' },
    });
    const bad = await bench.post('/view/submit', { user: ADA, view_id: modal.id, values: values('0x1234') });
    expect(bad.answer.ok).toBe(true);
    const refused = await bench.waitFor(
      ADA,
      (s) => s.modals.find((m) => m.id === modal.id && m.errors),
      'the inline error',
    );
    expect(Object.keys(refused.errors ?? {})).toEqual([WITHDRAW.address]);
    // Nothing filed: the channel holds only the policy the start recorded.
    const requests = messagesIn(await bench.state(ADA), APPROVALS).filter((m) => /AR-/.test(wording(m)));
    expect(requests).toEqual([]);

    await bench.post('/view/submit', { user: ADA, view_id: modal.id, values: values(DEST) });
    const posted = await bench.waitFor(
      BOLA,
      (s) => messagesIn(s, APPROVALS).find((m) => /AR-[0-9A-F]+/.test(wording(m))),
      'the approval request in #approvals',
    );
    requestId = /AR-[0-9A-F]+/.exec(wording(posted))?.[0] ?? '';
    messageTs = posted.ts;
    expect(wording(posted)).toMatch(/1,500/);
    // The form says where the request waits, and closes with the person.
    await bench.waitFor(
      ADA,
      (s) => s.modals.some((m) => wording(m.view).includes(requestId)),
      'the filed notice',
    );
  });

  const approve = (bench: Bench, user: string) =>
    bench.post('/action', {
      user,
      container: { type: 'message', channel: APPROVALS, ts: messageTs },
      block_id: APPROVAL_ACTIONS_BLOCK,
      action_id: APPROVE_ACTION,
    });

  test("refuses Ada's Approve (she files, she does not approve) with a note only Ada sees", async ({
    bench,
  }) => {
    expect((await approve(bench, ADA)).answer.ok).toBe(true);
    const note = await bench.waitFor(
      ADA,
      (s) => messagesIn(s, APPROVALS).find((m) => m.visibleTo === ADA),
      "Ada's private refusal",
    );
    expect(note.text).toContain('needs the *approver* role, held by <@U0BOLA> and <@U0CHIDI>');
    const bola = await bench.state(BOLA);
    expect(messagesIn(bola, APPROVALS).some((m) => m.ts === note.ts)).toBe(false);
  });

  test("refuses Dayo's Approve (not an approver), privately", async ({ bench }) => {
    expect((await approve(bench, DAYO)).answer.ok).toBe(true);
    const note = await bench.waitFor(
      DAYO,
      (s) => messagesIn(s, APPROVALS).find((m) => m.visibleTo === DAYO),
      "Dayo's private refusal",
    );
    expect(note.text).toMatch(/approver/i);
    const request = (await bench.state(BOLA)).messages[APPROVALS]?.find(approvalMessage(requestId));
    expect(wording(request)).toMatch(/0 of 1/);
  });

  test('Bola approves: the review shows the figures, and its submission moves the message to sent, then completed', async ({
    bench,
  }) => {
    expect((await approve(bench, BOLA)).answer.ok).toBe(true);
    const review = await bench.waitFor(
      BOLA,
      (s) => s.modals.find((m) => m.view.callback_id === REVIEW_VIEW),
      'the review modal',
    );
    expect(wording(review.view)).toContain(DEST);
    expect('submit' in review.view && review.view.submit?.text).toBe('Approve ₦1,500.00');
    // Nothing moved on opening it.
    const before = (await bench.state(BOLA)).messages[APPROVALS]?.find(approvalMessage(requestId));
    expect(wording(before)).toMatch(/0 of 1/);
    expect((await bench.post('/view/submit', { user: BOLA, view_id: review.id, values: {} })).answer.ok).toBe(
      true,
    );
    const sent = await bench.waitFor(
      BOLA,
      (s) =>
        messagesIn(s, APPROVALS).find(
          (m) => m.ts === messageTs && /Sent, waiting for the final status/.test(wording(m)),
        ),
      'the request marked sent',
    );
    expect(sent.edited).toBe(true);
    expect(wording(sent)).toMatch(/1 of 1 \(<@U0BOLA>\)/);
    expect((await bench.post('/sandbox/settle', {})).answer.ok).toBe(true);
    await bench.waitFor(
      BOLA,
      (s) => messagesIn(s, APPROVALS).find((m) => m.ts === messageTs && /Completed/.test(wording(m))),
      'the request marked completed',
    );
    // Ada hears of it in her DM with the bot; the completion alert reaches #alerts by the signed webhook.
    await bench.waitFor(
      ADA,
      (s) => messagesIn(s, `D${ADA}`).find((m) => m.text.includes(requestId)),
      "Ada's DM",
    );
    await bench.waitFor(
      ADA,
      (s) => messagesIn(s, ALERTS).find((m) => /withdrawal/i.test(wording(m))),
      'the alert',
    );
  });
});

describe('a rejection', () => {
  test('opens the reason form for Chidi from his click; an empty reason never reaches the bot; the reason shows on the request', async ({
    bench,
  }) => {
    await bench.post('/command', { user: ADA, channel: TREASURY, text: `/cngn withdraw 700 base ${DEST}` });
    const form = await bench.waitFor(
      ADA,
      (s) =>
        s.modals.find(
          (m) => m.view.callback_id === WITHDRAW_VIEW && m.view.blocks.some((b) => b.type === 'input'),
        ),
      'the withdrawal form filled in from the command',
    );
    // Untouched inputs submit what the command filled in; the purpose is typed.
    await bench.post('/view/submit', {
      user: ADA,
      view_id: form.id,
      values: { [WITHDRAW.purpose]: { [WITHDRAW.purpose]: 'Supplier payout INV-2231' } },
    });
    const request = await bench.waitFor(
      CHIDI,
      (s) => messagesIn(s, APPROVALS).find((m) => !m.thread_ts && /₦700\.00/.test(m.text)),
      'the request for 700',
    );
    await bench.post('/action', {
      user: CHIDI,
      container: { type: 'message', channel: APPROVALS, ts: request.ts },
      block_id: APPROVAL_ACTIONS_BLOCK,
      action_id: REJECT_ACTION,
    });
    const reject = await bench.waitFor(
      CHIDI,
      (s) => s.modals.find((m) => m.view.callback_id === REJECT_VIEW),
      "Chidi's reject form",
    );
    expect((await bench.state(ADA)).modals.some((m) => m.id === reject.id)).toBe(false);
    await bench.post('/view/submit', {
      user: CHIDI,
      view_id: reject.id,
      values: { [REJECT.reason]: { [REJECT.reason]: '' } },
    });
    const empty = (await bench.state(CHIDI)).modals.find((m) => m.id === reject.id);
    // Slack's client's own words: the bot's refusal would be its own sentence.
    expect(empty?.errors).toEqual({ [REJECT.reason]: 'Please complete this required field.' });

    await bench.post('/view/submit', {
      user: CHIDI,
      view_id: reject.id,
      values: { [REJECT.reason]: { [REJECT.reason]: 'wrong network for this supplier' } },
    });
    await bench.waitFor(
      CHIDI,
      (s) =>
        messagesIn(s, APPROVALS).find(
          (m) =>
            m.ts === request.ts &&
            /Rejected/.test(wording(m)) &&
            /wrong network for this supplier/.test(wording(m)),
        ),
      'the request marked rejected with the reason',
    );
    expect((await bench.state(CHIDI)).modals).toEqual([]);
  });
});

describe('the sandbox panel', () => {
  test('a crypto deposit arrives in #alerts through the signed webhook path', async ({ bench }) => {
    const { answer } = await bench.post('/sandbox/crypto-deposit', { amount: '5000' });
    expect(answer.ok).toBe(true);
    await bench.waitFor(
      DAYO,
      (s) => messagesIn(s, ALERTS).find((m) => /5,000/.test(wording(m)) && /deposit/i.test(wording(m))),
      'the deposit alert',
    );
  });

  test('paying with no virtual account yet says what to do; a bad body names the field', async ({
    bench,
  }) => {
    const pay = await bench.post('/sandbox/pay', {});
    expect(pay.answer).toMatchObject({ ok: false });
    expect(pay.answer.error).toMatch(/\/cngn deposit/);
    const bad = await bench.post('/sandbox/crypto-deposit', { amount: '5000', colour: 'red' });
    expect(bad.status).toBe(400);
  });
});

describe('App Home and closing a modal', () => {
  test('opening App Home reaches the bot as a signed app_home_opened event, and the bot publishes Home', async ({
    bench,
  }) => {
    const { status, answer } = await bench.post('/home', { user: DAYO });
    expect(status).toBe(200);
    expect(answer.ok).toBe(true);
    const home = await bench.waitFor(DAYO, (s) => s.home, "Dayo's App Home");
    expect(home.type).toBe('home');
    expect(JSON.stringify(home.blocks)).toContain('SANDBOX');
  });

  test('closing a form removes it for that person only', async ({ bench }) => {
    // Ada files requests; Dayo only reads.
    await bench.post('/command', { user: ADA, channel: TREASURY, text: '/cngn withdraw' });
    const form = await bench.waitFor(
      ADA,
      (s) => s.modals.find((m) => m.view.callback_id === WITHDRAW_VIEW),
      "Ada's withdrawal form",
    );
    expect((await bench.post('/view/close', { user: ADA, view_id: form.id })).answer.ok).toBe(true);
    expect((await bench.state(ADA)).modals).toEqual([]);
  });
});

describe('live updates and reloads', () => {
  test('the event stream sends the version, and another on every change', async ({ bench }) => {
    const controller = new AbortController();
    const response = await fetch(`${bench.url}/workbench/api/events`, { signal: controller.signal });
    expect(response.headers.get('content-type')).toMatch(/text\/event-stream/);
    const reader = response.body?.getReader();
    if (!reader) throw new Error('no stream');
    const decoder = new TextDecoder();
    let text = '';
    const nextEvent = async () => {
      for (;;) {
        const event = /data: (\{[^\n]*\})\n\n/.exec(text);
        if (event?.[1]) {
          text = text.slice((event.index ?? 0) + event[0].length);
          return JSON.parse(event[1]) as { version: number };
        }
        const { value, done } = await reader.read();
        if (done) throw new Error('stream ended');
        text += decoder.decode(value);
      }
    };
    const first = await nextEvent();
    await bench.post('/message', { user: DAYO, channel: TREASURY, text: 'morning all' });
    const second = await nextEvent();
    expect(second.version).toBeGreaterThan(first.version);
    controller.abort();
  });

  test('a plain message and its thread reply are kept, with the reply count on the parent', async ({
    bench,
  }) => {
    await bench.post('/message', { user: BOLA, channel: TREASURY, text: 'who filed the 1,500?' });
    const parent = (await bench.state(BOLA)).messages[TREASURY]?.find(
      (m) => m.text === 'who filed the 1,500?',
    );
    if (!parent) throw new Error('no parent');
    await bench.post('/message', { user: ADA, channel: TREASURY, text: 'me', thread_ts: parent.ts });
    const again = await bench.state(DAYO);
    expect(again.messages[TREASURY]?.find((m) => m.ts === parent.ts)?.reply_count).toBe(1);
    expect(again.messages[TREASURY]?.find((m) => m.text === 'me')).toMatchObject({
      user: ADA,
      thread_ts: parent.ts,
    });
    // A reload is the same request again: the same state.
    expect(await bench.state(DAYO)).toEqual(again);
  });
});
