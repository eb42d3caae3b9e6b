// The sandbox panel's routes drive the embedded sandbox, and what it does reaches #alerts through the
// real signed webhook path: a virtual account paid, a redemption made to fail. The redemption is
// filed through its modal with the bank found by type-ahead (a signed block_suggestion).
import { describe, expect } from 'vitest';
import { REDEEM, REDEEM_VIEW } from '../../src/slack/approvals/blocks/bank-modal.js';
import {
  ADA,
  ALERTS,
  APPROVALS,
  approveInBench,
  type Bench,
  BOLA,
  CHIDI,
  messagesIn,
  TREASURY,
  benchTest as test,
  wording,
} from '../support/workbench-bench.js';

describe('a redemption that the sandbox is told to fail', () => {
  test('shows the resolved account name, then ends failed with the reason in #alerts', async ({ bench }) => {
    await bench.post('/command', { user: ADA, channel: TREASURY, text: '/cngn redeem' });
    const modal = await bench.waitFor(
      ADA,
      (s) =>
        s.modals.find(
          (m) => m.view.callback_id === REDEEM_VIEW && m.view.blocks.some((b) => b.type === 'input'),
        ),
      'the redemption form',
    );
    const suggest = await bench.post('/suggest', {
      user: ADA,
      view_id: modal.id,
      block_id: REDEEM.bank,
      action_id: REDEEM.bank,
      value: 'guaranty',
    });
    const options = suggest.answer.options as Array<{ text: string; value: string }>;
    const bank = options.find((o) => /Guaranty/.test(o.text));
    if (!bank) throw new Error(`no Guaranty Trust Bank among ${JSON.stringify(options)}`);

    await bench.post('/view/submit', {
      user: ADA,
      view_id: modal.id,
      values: {
        [REDEEM.amount]: { [REDEEM.amount]: '50000' },
        [REDEEM.bank]: { [REDEEM.bank]: bank.value },
        [REDEEM.account]: { [REDEEM.account]: '0123456788' },
        [REDEEM.purpose]: { [REDEEM.purpose]: 'Refund to customer' },
      },
    });
    const request = await bench.waitFor(
      CHIDI,
      (s) => messagesIn(s, APPROVALS).find((m) => /Redemption/.test(wording(m)) && /AR-/.test(m.text)),
      'the redemption request',
    );
    expect(wording(request)).toMatch(/Account name \(resolved\)/);
    expect(wording(request)).toMatch(/0123456788/);

    expect((await bench.post('/sandbox/fail-next-redemption', {})).answer.ok).toBe(true);
    const review = await approveInBench(bench, CHIDI, { channel: APPROVALS, ts: request.ts });
    expect(wording(review.view)).toMatch(/0123456788/);
    await bench.waitFor(
      CHIDI,
      (s) => messagesIn(s, APPROVALS).find((m) => m.ts === request.ts && /Sent, waiting/.test(wording(m))),
      'sent',
    );
    await bench.post('/sandbox/settle', {});
    const failed = await bench.waitFor(
      CHIDI,
      (s) =>
        messagesIn(s, APPROVALS).find(
          (m) => m.ts === request.ts && /Provider failed to process payout/.test(wording(m)),
        ),
      'the request marked failed with the reason',
    );
    expect(wording(failed)).toMatch(/Failed|failed/);
    await bench.waitFor(
      ADA,
      (s) => messagesIn(s, ALERTS).find((m) => /Provider failed to process payout/.test(wording(m))),
      'the failure alert',
    );
  });
});

describe('a deposit into a virtual account', () => {
  test('shows the account with its expiry, and paying it from the panel brings the deposit alerts', async ({
    bench,
  }) => {
    await bench.post('/command', {
      user: ADA,
      channel: TREASURY,
      text: '/cngn deposit 25000 payer@example.com',
    });
    const form = await bench.waitFor(
      ADA,
      (s) => s.modals.find((m) => m.view.callback_id === 'deposit.submit'),
      'the deposit form, filled in from the command',
    );
    // Untouched inputs submit their initial values, as in Slack.
    await bench.post('/view/submit', { user: ADA, view_id: form.id, values: {} });
    const account = await bench.waitFor(
      ADA,
      (s) => s.modals.find((m) => /expire/i.test(wording(m.view)) && /Reference/i.test(wording(m.view))),
      'the virtual account',
    );
    expect(wording(account.view)).toMatch(/25,000/);
    const paid = await bench.post('/sandbox/pay', {});
    expect(paid.answer).toMatchObject({ ok: true });
    await bench.waitFor(
      ADA,
      (s) => messagesIn(s, ALERTS).find((m) => /deposit/i.test(wording(m)) && /25,/.test(wording(m))),
      'the deposit alert',
    );
  });
});

describe('"Require passkeys" in the sandbox panel', () => {
  test('switches the running bot between clicks and passkey-signed approvals, and the state says which', async ({
    bench,
  }) => {
    const signing = () => bench.started.bot.approvals?.engine.passkeys.signatures().options;
    // Present from the start, rule off, signed at http://localhost:<the bot's port>.
    const port = new URL(bench.url).port;
    expect(signing()).toMatchObject({
      rule: { mode: 'off' },
      rpId: 'localhost',
      origin: `http://localhost:${port}`,
    });
    expect((await bench.state(ADA)).passkeysRequired).toBe(false);

    const on = await bench.post('/sandbox/passkeys', { required: true });
    expect(on).toMatchObject({ status: 200, answer: { ok: true, passkeysRequired: true } });
    expect(signing()?.rule).toEqual({ mode: 'all' });
    expect((await bench.state(ADA)).passkeysRequired).toBe(true);
    // On the audit record as it switched: the trail's newest settings are the rule in force.
    expect(await recordedRule(bench)).toBe(`all at http://localhost:${port}`);

    const off = await bench.post('/sandbox/passkeys', { required: false });
    expect(off).toMatchObject({ status: 200, answer: { ok: true, passkeysRequired: false } });
    expect(signing()?.rule).toEqual({ mode: 'off' });
    expect((await bench.state(ADA)).passkeysRequired).toBe(false);
    expect(await recordedRule(bench)).toBeUndefined();

    const bad = await bench.post('/sandbox/passkeys', { required: 'yes' });
    expect(bad.status).toBe(400);
    expect(signing()?.rule).toEqual({ mode: 'off' });
  });

  test('/cngn policy and App Home say the rule in force, as switched, not the one the bot started with', async ({
    bench,
  }) => {
    await bench.post('/sandbox/passkeys', { required: true });
    expect(await policyAnswer(bench)).toContain("Every approval is signed with the approver's passkey");
    expect(await homePasskeys(bench, 'Every approval')).toContain(
      "Every approval is signed with the approver's passkey",
    );

    await bench.post('/sandbox/passkeys', { required: false });
    const off = await policyAnswer(bench);
    expect(off).toContain('Approvals are made with a click; no passkey is asked for.');
    expect(off).not.toContain('signed with the approver');
    expect(await homePasskeys(bench, 'Approvals are made with a click')).not.toContain(
      'signed with the approver',
    );
  });
});

/** The signing rule of the newest settings in the bot's audit trail (undefined: none, approvals unsigned). */
async function recordedRule(bench: Bench): Promise<unknown> {
  const engine = bench.started.bot.approvals?.engine;
  const settings = (await engine?.audit(1000))?.findLast((e) => e.kind === 'policy' && e.policy?.settings);
  return settings?.policy?.settings?.find((s) => s.name === 'signed approvals')?.value;
}

/** `/cngn policy` typed by Ada in #treasury: the wording of the answer it brings (the newest one). */
async function policyAnswer(bench: Bench): Promise<string> {
  const policyAnswers = async () =>
    messagesIn(await bench.state(ADA), TREASURY).filter((m) => wording(m).includes('*Passkeys*'));
  const before = (await policyAnswers()).length;
  await bench.post('/command', { user: ADA, channel: TREASURY, text: '/cngn policy' });
  await bench.waitFor(
    ADA,
    (s) =>
      messagesIn(s, TREASURY).filter((m) => wording(m).includes('*Passkeys*')).length > before || undefined,
    'the policy answer',
  );
  return wording((await policyAnswers()).at(-1));
}

/** Bola opens App Home: the wording of Home once it says `part` on its *Passkeys* line. */
async function homePasskeys(bench: Bench, part: string): Promise<string> {
  await bench.post('/home', { user: BOLA });
  const home = await bench.waitFor(
    BOLA,
    (s) => (wording(s.home).includes(`*Passkeys*: ${part}`) ? s.home : undefined),
    `App Home saying "${part}"`,
  );
  return wording(home);
}
