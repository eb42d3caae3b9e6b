// The outbox delivers every accepted event exactly once, in order per reference, through Slack rate
// limits, errors and restarts.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import type { WebhookEvent } from '../../src/cngn/schemas.js';
import { FakeSlack } from '../support/fake-slack.js';
import { test } from '../support/fixtures.js';
import {
  postsMentioning,
  type Rig,
  recordingLogger,
  startRig,
  waitUntil,
  webhookBody,
} from '../support/webhook-rig.js';

/**
 * `rig(options)`, a webhook rig stopped after the test, and `dir`, a temporary directory of the test's
 * own, removed after it (and after its rigs).
 */
const it = test
  .extend('dir', ({ defer }) => {
    const dir = mkdtempSync(join(tmpdir(), 'cngn-wh-'));
    defer(() => rmSync(dir, { recursive: true, force: true }));
    return dir;
  })
  .extend('rig', ({ defer }) => async (options: Parameters<typeof startRig>[0] = {}): Promise<Rig> => {
    const started = await startRig(options);
    defer(() => started.stop());
    return started;
  });

function refsPosted(fake: FakeSlack): string[] {
  return fake
    .callsTo('chat.postMessage')
    .map((c) => /Ref `([^`]+)`/.exec(JSON.stringify(c.body))?.[1] ?? '?');
}

describe('webhook delivery', () => {
  it('loses nothing across a restart: events stored while Slack was unreachable are posted once by the next process', async ({
    dir,
    rig,
  }) => {
    const storeUrl = `sqlite://${join(dir, 'store.sqlite')}`;
    // First process: Slack answers 500 to everything; deliveries keep failing.
    const down = await FakeSlack.start();
    down.on('chat.postMessage', () => ({ status: 500, body: { ok: false, error: 'internal_error' } }));
    const first = await startRig({ storeUrl, fake: down });
    const bodies = Array.from({ length: 6 }, (_, i) =>
      webhookBody(i % 2 ? 'deposit.completed' : 'deposit.received', { trx_ref: `REF-R${Math.floor(i / 2)}` }),
    );
    for (const body of bodies) expect((await first.send(body)).status).toBe(200);
    // A process that never started a deliverer also counts.
    await first.stop();
    const second = await startRig({ storeUrl, deliver: false });
    const late = webhookBody('withdrawal.completed', { trx_ref: 'REF-LATE', trx_type: 'withdraw' });
    expect((await second.send(late)).status).toBe(200);
    await second.stop();

    // One message per event here (the digest path has its own tests, in digest.test.ts).
    const third = await rig({ storeUrl, digests: false });
    await third.fake.waitFor('chat.postMessage', (c) => JSON.stringify(c.body).includes('REF-LATE'));
    await waitUntil(async () => (await third.webhooks.outbox.pendingCount()) === 0);
    const refs = refsPosted(third.fake);
    expect(refs).toHaveLength(7);
    expect(new Set(refs).size).toBe(4);
    for (const ref of ['REF-R0', 'REF-R1', 'REF-R2']) {
      const posts = postsMentioning(third.fake, ref).map((c) => String(c.body.text));
      expect(posts).toHaveLength(2);
      expect(posts[0]).toContain('Deposit received');
      expect(posts[1]).toContain('Deposit credited');
    }
  });

  it('waits out 429 Retry-After and still posts every event exactly once', async ({ rig }) => {
    const fake = await FakeSlack.start();
    let refused = 0;
    fake.on('chat.postMessage', () => {
      if (refused >= 4) return undefined;
      refused += 1;
      return { status: 429, headers: { 'retry-after': '1' }, body: { ok: false, error: 'ratelimited' } };
    });
    // The deliverer's waits are recorded and cut short: the fake refuses by count, not by time.
    const waits: number[] = [];
    const r = await rig({ fake, sleep: async (ms) => void waits.push(ms) });
    const refs = Array.from({ length: 5 }, (_, i) => `REF-429-${i}`);
    for (const ref of refs)
      expect((await r.send(webhookBody('deposit.completed', { trx_ref: ref }))).status).toBe(200);
    for (const ref of refs) {
      await fake.waitFor('chat.postMessage', (c) => JSON.stringify(c.body).includes(ref), 15_000);
    }
    await waitUntil(async () => (await r.webhooks.outbox.pendingCount()) === 0);
    expect(refused).toBe(4);
    expect(waits).toEqual([1_000, 1_000, 1_000, 1_000]);
    expect(refsPosted(fake).sort()).toEqual(refs);
  });

  it('waits as long as Retry-After says before posting again', async ({ rig }) => {
    const fake = await FakeSlack.start();
    let refused = 0;
    fake.on('chat.postMessage', () => {
      if (refused >= 1) return undefined;
      refused += 1;
      return { status: 429, headers: { 'retry-after': '30' }, body: { ok: false, error: 'ratelimited' } };
    });
    // The deliverer's waits are recorded and cut short, so the test does not sit out 30 s.
    const waits: number[] = [];
    const r = await rig({
      fake,
      sleep: async (ms) => {
        waits.push(ms);
      },
    });
    await r.send(webhookBody('deposit.completed', { trx_ref: 'REF-RETRY-AFTER' }));
    await fake.waitFor('chat.postMessage', (c) => JSON.stringify(c.body).includes('REF-RETRY-AFTER'));
    expect(refused).toBe(1);
    expect(waits).toEqual([30_000]);
    expect(postsMentioning(fake, 'REF-RETRY-AFTER')).toHaveLength(1);
  });

  it('keeps one reference in order even when its messages go to different channels', async ({ rig }) => {
    const fake = await FakeSlack.start();
    let held = true;
    // The deposits channel is rate-limited until we let it go; the completion must wait for it.
    fake.on('chat.postMessage', (call) =>
      held && call.body.channel === 'CRECEIVED'
        ? { status: 429, headers: { 'retry-after': '1' }, body: { ok: false, error: 'ratelimited' } }
        : undefined,
    );
    const r = await rig({ fake, alertRoutes: 'deposit.received:CRECEIVED' });
    await r.send(webhookBody('deposit.received', { trx_ref: 'REF-ORDER', status: 'pending' }));
    await r.send(webhookBody('deposit.completed', { trx_ref: 'REF-ORDER' }));
    await r.send(webhookBody('deposit.completed', { trx_ref: 'REF-OTHER' }));
    // Another reference in the default channel is not held up.
    await fake.waitFor('chat.postMessage', (c) => JSON.stringify(c.body).includes('REF-OTHER'));
    expect(postsMentioning(fake, 'REF-ORDER')).toHaveLength(0);
    held = false;
    await fake.waitFor(
      'chat.postMessage',
      (c) =>
        JSON.stringify(c.body).includes('Deposit credited') && JSON.stringify(c.body).includes('REF-ORDER'),
      15_000,
    );
    const order = postsMentioning(fake, 'REF-ORDER').map((c) => [
      c.body.channel,
      String(c.body.text).split(':')[0],
    ]);
    expect(order).toEqual([
      ['CRECEIVED', '[SANDBOX] Deposit received'],
      ['CALERTS', '[SANDBOX] Deposit credited'],
    ]);
  });

  it('never holds a reference behind an earlier message that has no channel to go to', async ({ rig }) => {
    const r = await rig({ alertsChannel: null, alertRoutes: 'deposit.completed:CDEPOSITS' });
    await r.send(webhookBody('deposit.received', { trx_ref: 'REF-NOWHERE', status: 'pending' }));
    await r.send(webhookBody('deposit.completed', { trx_ref: 'REF-NOWHERE' }));
    const credited = await r.fake.waitFor('chat.postMessage', (c) =>
      JSON.stringify(c.body).includes('REF-NOWHERE'),
    );
    expect(credited.body.channel).toBe('CDEPOSITS');
    expect(String(credited.body.text)).toContain('Deposit credited');
    // The unroutable one is kept, not lost: it waits in the outbox for a channel.
    await waitUntil(async () => (await r.webhooks.outbox.pendingCount()) === 1);
  });

  it('retries 5xx with backoff and falls back to the alerts channel when a routed one is gone', async ({
    rig,
  }) => {
    const fake = await FakeSlack.start();
    let failures = 0;
    fake.on('chat.postMessage', (call) => {
      if (call.body.channel === 'CGONE')
        return { status: 200, body: { ok: false, error: 'channel_not_found' } };
      if (failures < 2) {
        failures += 1;
        return { status: 503, body: { ok: false, error: 'service_unavailable' } };
      }
      return undefined;
    });
    const r = await rig({ fake, alertRoutes: 'transaction.failed:CGONE' });
    await r.send(webhookBody('withdrawal.completed', { trx_ref: 'REF-5XX', trx_type: 'withdraw' }));
    await r.send(
      webhookBody('transaction.failed', { trx_ref: 'REF-GONE', trx_type: 'withdraw', reason: 'reverted' }),
    );
    await fake.waitFor('chat.postMessage', (c) => JSON.stringify(c.body).includes('REF-5XX'));
    const gone = await fake.waitFor(
      'chat.postMessage',
      (c) => JSON.stringify(c.body).includes('REF-GONE') && c.body.channel === 'CALERTS',
    );
    expect(gone.body.text).toContain('Withdrawal failed');
    expect(failures).toBe(2);
    expect(postsMentioning(fake, 'REF-5XX')).toHaveLength(1);
  });

  it('sets aside an alert Slack can never accept, says so in the alerts channel, and lets the queue go on', async ({
    rig,
  }) => {
    const fake = await FakeSlack.start();
    fake.on('chat.postMessage', (call) =>
      call.body.channel === 'CFAILURES' && JSON.stringify(call.body).includes('REF-NEVER')
        ? { status: 200, body: { ok: false, error: 'invalid_arguments' } }
        : undefined,
    );
    const log = recordingLogger();
    const r = await rig({ fake, log, alertRoutes: 'transaction.failed:CFAILURES' });
    const failed = { trx_type: 'withdraw', reason: 'reverted' };
    await r.send(webhookBody('transaction.failed', { ...failed, trx_ref: 'REF-NEVER' }));
    await r.send(webhookBody('transaction.failed', { ...failed, trx_ref: 'REF-NEXT' }));
    const next = await fake.waitFor('chat.postMessage', (c) => JSON.stringify(c.body).includes('REF-NEXT'));
    expect(next.body.channel).toBe('CFAILURES');
    const notice = await fake.waitFor(
      'chat.postMessage',
      (c) => c.body.channel === 'CALERTS' && String(c.body.text).includes('REF-NEVER'),
    );
    expect(notice.body.text).toContain('invalid_arguments');
    expect(notice.body.text).toContain('dead-letter');
    expect(notice.body.blocks).toBeUndefined();
    // Tried once: this error cannot go away by trying again.
    expect(postsMentioning(fake, 'REF-NEVER').filter((c) => c.body.channel === 'CFAILURES')).toHaveLength(1);
    const dead = await r.webhooks.outbox.deadLetters();
    expect(dead.map((d) => [d.event.data.trx_ref, d.channel, d.reason])).toEqual([
      ['REF-NEVER', 'CFAILURES', 'invalid_arguments'],
    ]);
    await waitUntil(async () => (await r.webhooks.outbox.pendingCount()) === 0);
    const said = log.lines.filter((l) => l.startsWith('error') && l.includes('REF-NEVER'));
    expect(said).toHaveLength(1);
    expect(said[0]).toContain('dead-letter');
    expect(log.lines.join('\n')).not.toContain('xoxb-test');
  });

  it('gives up on an alert whose plain-text fallback is refused too', async ({ rig }) => {
    const fake = await FakeSlack.start();
    // Both the full message and its text alone carry the amount.
    const refused = (c: { body: Record<string, unknown> }) => String(c.body.text).includes('₦4,321.00');
    fake.on('chat.postMessage', (call) =>
      refused(call) ? { status: 200, body: { ok: false, error: 'msg_too_long' } } : undefined,
    );
    const r = await rig({ fake });
    await r.send(webhookBody('deposit.completed', { trx_ref: 'REF-TOOLONG', amount: '4321' }));
    await r.send(webhookBody('deposit.completed', { trx_ref: 'REF-AFTER-TOOLONG' }));
    await fake.waitFor('chat.postMessage', (c) => JSON.stringify(c.body).includes('REF-AFTER-TOOLONG'));
    const tries = fake.callsTo('chat.postMessage').filter(refused);
    expect(tries.map((c) => c.body.blocks === undefined)).toEqual([false, true]);
    await waitUntil(async () => (await r.webhooks.outbox.deadLetters()).length === 1);
    const [dead] = await r.webhooks.outbox.deadLetters();
    expect([dead?.event.data.trx_ref, dead?.reason]).toEqual(['REF-TOOLONG', 'msg_too_long']);
  });

  it('sets aside an alert after a bounded number of unknown errors, but keeps retrying Slack outages', async ({
    rig,
  }) => {
    const fake = await FakeSlack.start();
    let outage = 0;
    fake.on('chat.postMessage', (call) => {
      const body = JSON.stringify(call.body);
      if (body.includes('REF-ODD')) return { status: 200, body: { ok: false, error: 'something_new' } };
      if (body.includes('REF-OUTAGE') && outage < 8) {
        outage += 1;
        return { status: 503, body: { ok: false, error: 'service_unavailable' } };
      }
      return undefined;
    });
    const waits: number[] = [];
    const r = await rig({ fake, sleep: async (ms) => void waits.push(ms) });
    await r.send(webhookBody('deposit.completed', { trx_ref: 'REF-ODD' }));
    await r.send(webhookBody('deposit.completed', { trx_ref: 'REF-OUTAGE' }));
    await fake.waitFor('chat.postMessage', (c) => JSON.stringify(c.body).includes('REF-OUTAGE'));
    expect(outage).toBe(8);
    expect(postsMentioning(fake, 'REF-ODD')).toHaveLength(5);
    const dead = await r.webhooks.outbox.deadLetters();
    expect(dead.map((d) => [d.event.data.trx_ref, d.reason, d.attempts])).toEqual([
      ['REF-ODD', 'something_new', 5],
    ]);
  });

  it('tells subscribers about each new event once, duplicates excluded', async ({ rig }) => {
    const seen: WebhookEvent[] = [];
    const r = await rig({ subscribers: [async (event) => void seen.push(event)] });
    const body = webhookBody('bridge.completed', { trx_ref: 'REF-SUB', trx_type: 'swap' });
    await r.send(body);
    await r.send(body);
    await r.webhooks.pipeline.settled();
    expect(seen.map((e) => e.data.trx_ref)).toEqual(['REF-SUB']);
  });

  it('never lets two deliverers on one store post the same entry', async ({ defer }) => {
    const fake = await FakeSlack.start();
    const { createStore } = await import('../../src/store/index.js');
    const store = await createStore('memory://', { prefix: `shared-${Math.random()}` });
    const a = await startRig({ fake, store, digests: false });
    const b = await startRig({ fake, store, digests: false });
    defer(() => a.stop());
    defer(() => b.stop());
    const refs = Array.from({ length: 20 }, (_, i) => `REF-TWO-${i}`);
    await Promise.all(
      refs.map((ref, i) => (i % 2 ? a : b).send(webhookBody('deposit.completed', { trx_ref: ref }))),
    );
    for (const ref of refs)
      await fake.waitFor('chat.postMessage', (c) => JSON.stringify(c.body).includes(ref));
    await waitUntil(async () => (await a.webhooks.outbox.pendingCount()) === 0);
    expect(refsPosted(fake).sort()).toEqual([...refs].sort());
  });
});
