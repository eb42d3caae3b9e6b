// A delegation request's own life, over signed HTTP with the real Bolt app and the fake Slack: it is
// written to the bot's store rather than sent to the service, so its message and thread say so, also
// when the bot stopped while writing it; and it expires no later than the end of the window it asks
// for, since approved after that it would never be in effect.
import { describe, expect } from 'vitest';
import { EXECUTION_LEASE_MS } from '../../../src/approvals/executor.js';
import { createStore } from '../../../src/store/index.js';
import { botTest as test } from '../../support/bot.js';
import { Clock } from '../../support/engine.js';
import { commandAnswer } from '../../support/slack-requests.js';
import { stoppedAtDelegationWrite } from '../../support/stopped-delegation-write.js';
import { APPROVER_A, type ApprovalApp, approve, waitUntil } from '../approvals/support.js';

const CHIDI = 'UCHIDI'; // an approver who is away
const BOLA = 'UBOLA'; // not an approver: Chidi's delegate

/** Run `/cngn <text>` as `userId`; the private answer's text. */
async function command(a: ApprovalApp, text: string, userId: string): Promise<string> {
  return String((await commandAnswer(a, text, userId)).body.text);
}

async function fileDelegation(a: ApprovalApp, until: string): Promise<string> {
  const filed = await command(a, `delegate <@${BOLA}|bola> until ${until}`, CHIDI);
  const id = /AR-[0-9A-F]{10}/.exec(filed)?.[0];
  if (!id) throw new Error(`not filed: ${filed}`);
  return id;
}

/** Everything the channel, the request's thread and the DMs were told about the request. */
async function saidAbout(a: ApprovalApp, id: string): Promise<string> {
  const thread = (await a.engine.get(id))?.announcement?.ts;
  return ['chat.postMessage', 'chat.update', 'chat.postEphemeral']
    .flatMap((method) => a.slack.callsTo(method))
    .filter((c) => JSON.stringify(c.body).includes(id) || (thread && c.body.thread_ts === thread))
    .map((c) => JSON.stringify([c.body.text, c.body.blocks]))
    .join('\n');
}

const settled = async (a: ApprovalApp) => {
  await a.engine.idle();
  await a.approvals?.presenter?.idle();
  await a.approvals?.dms?.idle();
};

describe('a delegation request', () => {
  test('says it puts the delegation in effect in the bot’s store, and after a stop while writing it, that it checks the store', async ({
    startApp,
    defer,
  }) => {
    const clock = new Clock();
    const inner = await createStore('memory://');
    defer(() => inner.close());
    // The bot stops right as it writes the delegation: that write never lands, and nothing after it runs.
    const { store: dying, stop } = stoppedAtDelegationWrite(inner, { landed: false });
    const a = await startApp({ approvers: [APPROVER_A, CHIDI], store: dying, now: clock.now });
    const id = await fileDelegation(a, '7d');
    await approve(a, `${id}:0`, APPROVER_A);
    await waitUntil(
      async () => (await a.engine.get(id))?.execution?.phase === 'sending',
      'the write of the delegation',
    );
    // The engine's own work waits on the stopped write: only Slack's side is waited for until it ends.
    const shown = async () => {
      await a.approvals?.presenter?.idle();
      await a.approvals?.dms?.idle();
    };
    await shown();
    // After a restart, later: the lease of the stopped write has run out.
    clock.advance(EXECUTION_LEASE_MS + 1_000);
    await a.engine.tick();
    await shown();
    const request = await a.engine.get(id);
    expect(request?.state).toBe('failed');
    expect(request?.history.map((h) => h.action)).toEqual(expect.arrayContaining(['interrupted', 'failed']));
    stop(new Error('the stopped process never answers'));
    await settled(a);

    const said = await saidAbout(a, id);
    expect(said).toContain('Putting the delegation in effect');
    expect(said).toContain('The bot restarted while putting the delegation in effect');
    expect(said).toContain("checking the bot's store for it instead of writing it again");
    expect(said).toContain("not found in the bot's store");
    for (const wrong of ['Sending to the service', 'transaction list', 'looked up, never resent', 'resend']) {
      expect(said).not.toContain(wrong);
    }
  });

  test('expires no later than the end of its window, and cannot be extended past it', async ({
    startApp,
  }) => {
    const clock = new Clock();
    const a = await startApp({ approvers: [APPROVER_A, CHIDI], now: clock.now });
    const id = await fileDelegation(a, '1m');
    const request = await a.engine.get(id);
    if (request?.kind !== 'delegation') throw new Error('not a delegation');
    expect(request.expiresAt).toBe(request.payload.until);
    expect(Date.parse(request.expiresAt) - Date.parse(request.createdAt)).toBeLessThanOrEqual(60_000);
    // The message offers no Extend, and asking for one changes nothing.
    const posted = a.slack.callsTo('chat.postMessage').find((c) => String(c.body.text).includes(id));
    expect(JSON.stringify(posted?.body.blocks)).not.toContain('approval.extend');
    expect(await command(a, `extend ${id}`, CHIDI)).toContain('already expires when its window ends');
    expect((await a.engine.get(id))?.expiresAt).toBe(request.payload.until);

    clock.advance(61_000);
    await a.engine.tick();
    await settled(a);
    expect((await a.engine.get(id))?.state).toBe('expired');
  });

  test('is extended at most to the end of its window', async ({ startApp }) => {
    const clock = new Clock();
    const a = await startApp({ approvers: [APPROVER_A, CHIDI], now: clock.now });
    const id = await fileDelegation(a, '30h'); // lifetime 24 h, window 30 h
    const request = await a.engine.get(id);
    if (request?.kind !== 'delegation') throw new Error('not a delegation');
    expect(Date.parse(request.expiresAt) - Date.parse(request.createdAt)).toBe(24 * 3_600_000);
    expect(await command(a, `extend ${id}`, CHIDI)).toContain('now expires');
    expect((await a.engine.get(id))?.expiresAt).toBe(request.payload.until);
  });
});
