// POST /webhooks/cngn refuses what it cannot trust or read — and posts nothing for it — while genuine
// deliveries are stored before the 200 and posted once.

import { describe, expect } from 'vitest';
import {
  curvePublicFromEd25519,
  curveSecretFromSeed,
  generateOpenSshKeyPair,
  openResponseData,
  parseOpenSshPrivateKey,
  sealResponseData,
} from '../../src/cngn/wire.js';
import { type IntakeResult, signatureFor } from '../../src/webhooks/index.js';
import { capturedLog } from '../support/captured-log.js';
import {
  abortMidBody,
  postsMentioning,
  recordingLogger,
  SECRET,
  waitUntil,
  webhookBody,
} from '../support/webhook-rig.js';
import { webhooksTest as test } from '../support/webhooks.js';

describe('webhook intake', () => {
  test('answers 401 to a bad or missing signature, 400 to bodies that are not JSON or name no event and 413 to oversized ones, posting nothing', async ({
    startRig,
  }) => {
    const rig = await startRig({ bodyLimitBytes: 4096 });
    const good = webhookBody('deposit.completed');
    const raw = JSON.stringify(good);

    expect((await rig.send(raw, { signature: signatureFor(raw, 'not-the-secret') })).status).toBe(401);
    expect((await rig.send(raw, { signature: null })).status).toBe(401);
    expect((await rig.send(raw, { signature: 'sha256=zz' })).status).toBe(401);
    expect(
      (await rig.send(`${raw.slice(0, -1)}, "x": 1}`, { signature: signatureFor(raw, SECRET) })).status,
    ).toBe(401);
    expect((await rig.send('{"event": "deposit.completed", "data": ')).status).toBe(400);
    const noEvent = await rig.send({ data: { trx_ref: 'R' } });
    expect(noEvent.status).toBe(400);
    expect(noEvent.body).toContain('event');
    expect((await rig.send({ event: 42, data: { trx_ref: 'R' } })).status).toBe(400);
    expect((await rig.send('[1, 2]')).status).toBe(400);
    const big = { ...good, padding: 'x'.repeat(10_000) };
    expect((await rig.send(big)).status).toBe(413);

    expect(await rig.webhooks.outbox.pendingCount()).toBe(0);
    // The process is still up and a genuine delivery goes through; it is the only post.
    const marker = webhookBody('deposit.completed', { trx_ref: 'REF-AFTER-REJECTS' });
    expect((await rig.send(marker)).status).toBe(200);
    await rig.fake.waitFor('chat.postMessage', (c) => JSON.stringify(c.body).includes('REF-AFTER-REJECTS'));
    expect(rig.fake.callsTo('chat.postMessage')).toHaveLength(1);
  });

  test('answers with the length of its answer, not in chunks: stored, duplicate and refused alike', async ({
    startRig,
  }) => {
    const rig = await startRig();
    const { request } = await import('undici');
    const raw = JSON.stringify(webhookBody('deposit.completed'));
    const send = (signature: string) =>
      request(rig.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-cngn-signature': signature },
        body: raw,
      });
    for (const signature of [signatureFor(raw, SECRET), signatureFor(raw, SECRET), 'sha256=00']) {
      const response = await send(signature);
      const text = await response.body.text();
      expect(response.headers['transfer-encoding']).toBeUndefined();
      expect(response.headers['content-length']).toBe(String(Buffer.byteLength(text)));
    }
  });

  test('answers 413 to a large chunked body without a length, reading no further', async ({ startRig }) => {
    const rig = await startRig({ bodyLimitBytes: 1024 });
    const { request } = await import('undici');
    const { Readable } = await import('node:stream');
    // A stream has no known length: undici sends it chunked, so only reading can find it too large.
    const chunks = () =>
      Readable.from(
        (function* () {
          for (let i = 0; i < 100; i++) yield Buffer.alloc(1024, 'a');
        })(),
      );
    const response = await request(rig.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-cngn-signature': `sha256=${'0'.repeat(64)}` },
      body: chunks(),
    }).catch((error: unknown) => error as Error);
    if (response instanceof Error) throw response;
    expect(response.statusCode).toBe(413);
    await response.body.text();
    expect(await rig.webhooks.outbox.pendingCount()).toBe(0);
  });

  test('writes one line for a flood of forged deliveries, then how many came, not a line for each', async ({
    startRig,
  }) => {
    const log = recordingLogger();
    const rig = await startRig({ log });
    const raw = JSON.stringify(webhookBody('deposit.completed'));
    const forged = signatureFor(raw, 'not-the-secret');
    for (let batch = 0; batch < 10; batch++) {
      const replies = await Promise.all(
        Array.from({ length: 20 }, () => rig.send(raw, { signature: forged })),
      );
      expect(replies.map((r) => r?.status)).toEqual(Array(20).fill(401));
    }
    const refusals = () => log.lines.filter((line) => line.includes('bad signature'));
    expect(refusals()).toEqual(['warn webhook refused: bad signature']);
    // The count is written when the minute ends, or at the latest when the bot stops.
    await rig.stop();
    expect(refusals()).toEqual([
      'warn webhook refused: bad signature',
      'warn webhook refused: bad signature (199 more like it in the last minute)',
    ]);
  });

  test('writes a line for unsigned deliveries, and for any without a secret, then how many came', async ({
    startRig,
  }) => {
    const log = recordingLogger();
    const rig = await startRig({ log });
    const raw = JSON.stringify(webhookBody('deposit.completed'));
    for (let i = 0; i < 5; i++) expect((await rig.send(raw, { signature: null })).status).toBe(401);
    const unsecured = await startRig({ log, secret: undefined });
    for (let i = 0; i < 3; i++) expect((await unsecured.send(raw)).status).toBe(401);
    const refusals = () => log.lines.filter((line) => line.includes('webhook refused'));
    expect(refusals()).toEqual([
      'warn webhook refused: missing X-cNGN-Signature',
      'warn webhook refused: no signing secret is configured',
    ]);
    await rig.stop();
    await unsecured.stop();
    expect(refusals()).toEqual([
      'warn webhook refused: missing X-cNGN-Signature',
      'warn webhook refused: no signing secret is configured',
      'warn webhook refused: missing X-cNGN-Signature (4 more like it in the last minute)',
      'warn webhook refused: no signing secret is configured (2 more like it in the last minute)',
    ]);
    // Nothing of the body, nor any secret, is in them.
    expect(log.lines.join('\n')).not.toMatch(/deposit\.completed|whsec_/);
  });

  test('writes a line for oversized or too deeply nested bodies, then how many came, not a line for each', async ({
    startRig,
  }) => {
    const log = recordingLogger();
    const rig = await startRig({ log, bodyLimitBytes: 4096 });
    const big = JSON.stringify({ ...webhookBody('deposit.completed'), padding: 'x'.repeat(10_000) });
    const deep = `{"event":"deposit.completed","data":{"x":${'['.repeat(50_000)}${']'.repeat(50_000)}}}`;
    for (const body of [big, big, deep]) expect((await rig.send(body)).status).toBe(413);
    const refusals = () => log.lines.filter((line) => line.includes('larger than'));
    expect(refusals()).toEqual(['warn webhook refused: body larger than 4096 bytes']);
    await rig.stop();
    expect(refusals()).toEqual([
      'warn webhook refused: body larger than 4096 bytes',
      'warn webhook refused: body larger than 4096 bytes (2 more like it in the last minute)',
    ]);
  });

  test('counts senders who close the connection mid-body as refused, not as deliveries it could not store', async ({
    startRig,
  }) => {
    const log = recordingLogger();
    const results: IntakeResult[] = [];
    const rig = await startRig({ log, onIntake: (result) => results.push(result) });
    for (let i = 0; i < 5; i++) await abortMidBody(rig.url);
    await waitUntil(() => results.length === 5);
    expect(results).toEqual(Array(5).fill('aborted'));
    const closed = 'warn webhook refused: connection closed before the body was whole';
    expect(log.lines.filter((line) => !line.startsWith('debug') && !line.startsWith('info'))).toEqual([
      closed,
    ]);
    await rig.stop();
    expect(log.lines.filter((line) => line.startsWith(closed))).toEqual([
      closed,
      `${closed} (4 more like it in the last minute)`,
    ]);
  });

  test('writes a line for each signed body that is not JSON', async ({ startRig }) => {
    const log = recordingLogger();
    const rig = await startRig({ log });
    expect((await rig.send('{"event": "deposit.completed", "data": ')).status).toBe(400);
    expect((await rig.send('not json')).status).toBe(400);
    expect(log.lines.filter((line) => line === 'warn webhook refused: body is not JSON')).toHaveLength(2);
  });

  test('names the outbox entry a delivery is kept under (webhookId) in the lines about it', async ({
    startRig,
  }) => {
    const { logger, entries } = capturedLog('warn');
    const rig = await startRig({ deliver: false, log: logger });
    // A field of a type nobody documented: kept, and said so.
    const reply = await rig.send(webhookBody('deposit.completed', { reason: { nested: true } }));
    expect(reply.status).toBe(200);
    const kept = entries.filter((l) => String(l.message).includes('kept with fields it could not read'));
    expect(kept).toEqual([expect.objectContaining({ level: 'warn', webhookId: expect.any(String) })]);
    expect(await rig.webhooks.outbox.pendingIds()).toEqual([kept[0]?.webhookId]);
  });

  test('refuses every delivery when no signing secret is configured', async ({ startRig }) => {
    const rig = await startRig({ secret: undefined });
    const reply = await rig.send(webhookBody('deposit.completed'));
    expect(reply.status).toBe(401);
    expect(reply.body).toContain('no signing secret');
    expect(await rig.webhooks.outbox.pendingCount()).toBe(0);
  });

  test('accepts a bare hex signature', async ({ startRig }) => {
    const rig = await startRig();
    const body = JSON.stringify(
      webhookBody('withdrawal.completed', { trx_type: 'withdraw', trx_ref: 'REF-BARE' }),
    );
    const reply = await rig.send(body, { signature: signatureFor(body, SECRET).slice('sha256='.length) });
    expect(reply.status).toBe(200);
    await rig.fake.waitFor('chat.postMessage', (c) => JSON.stringify(c.body).includes('REF-BARE'));
  });

  test('opens data that arrives sealed like response data', async ({ startRig }) => {
    const keys = generateOpenSshKeyPair();
    const pair = parseOpenSshPrivateKey(keys.privateKey);
    const secret = curveSecretFromSeed(pair.seed);
    const rig = await startRig({ openSealed: (sealed) => openResponseData(sealed, secret) });
    const body = webhookBody('redemption.completed', {
      trx_type: 'fiat_redeem',
      trx_ref: 'REF-SEALED',
      receiver: '058:0123456789:ADA OBI',
    });
    const sealed = sealResponseData(JSON.stringify(body.data), await curvePublicFromEd25519(pair.publicKey));
    expect((await rig.send({ ...body, data: sealed })).status).toBe(200);
    const post = await rig.fake.waitFor('chat.postMessage', (c) =>
      JSON.stringify(c.body).includes('REF-SEALED'),
    );
    expect(JSON.stringify(post.body)).toContain('••••6789');
    // Sealed to another key: refused, nothing posted.
    const other = parseOpenSshPrivateKey(generateOpenSshKeyPair().privateKey);
    const wrong = sealResponseData(
      JSON.stringify({ ...(body.data as object), trx_ref: 'REF-WRONG' }),
      await curvePublicFromEd25519(other.publicKey),
    );
    // Sealed to another key: still signed by the service, so kept and posted as an unreadable event.
    expect((await rig.send({ ...body, data: wrong })).status).toBe(200);
    const unreadable = await rig.fake.waitFor('chat.postMessage', (c) =>
      JSON.stringify(c.body).includes('could not be read'),
    );
    expect(JSON.stringify(unreadable.body)).toContain('`data`');
    expect(postsMentioning(rig.fake, 'REF-WRONG')).toHaveLength(0);
  });

  test('refuses a signed body nested 5,000 deep with 400 and a log line, plain or sealed, storing nothing', async ({
    startRig,
  }) => {
    const keys = generateOpenSshKeyPair();
    const pair = parseOpenSshPrivateKey(keys.privateKey);
    const log = recordingLogger();
    const rig = await startRig({
      openSealed: (sealed) => openResponseData(sealed, curveSecretFromSeed(pair.seed)),
      log,
    });
    const deep = `${'['.repeat(5_000)}${']'.repeat(5_000)}`;
    const plain = await rig.send(`{"event":"deposit.completed","data":{"trx_ref":"REF-DEEP","x":${deep}}}`);
    expect(plain.status).toBe(400);
    expect(plain.body).toContain('nests deeper');
    const sealed = sealResponseData(
      `{"trx_ref":"REF-DEEP","x":${deep}}`,
      await curvePublicFromEd25519(pair.publicKey),
    );
    expect((await rig.send({ event: 'deposit.completed', data: sealed })).status).toBe(400);
    expect(log.lines.filter((l) => /^warn webhook refused: .*nests deeper/.test(l))).toHaveLength(2);
    expect(await rig.webhooks.outbox.pendingCount()).toBe(0);
    // A body nested as deep as documented events is still taken.
    const ok = await rig.send(webhookBody('deposit.completed', { trx_ref: 'REF-SHALLOW', x: [[[[1]]]] }));
    expect(ok.status).toBe(200);
  });

  test('keeps a signed event whose fields have other types than documented, reading what it can', async ({
    startRig,
  }) => {
    // The body's times are fixed (it checks how they read): the clock that judges them is too.
    const rig = await startRig({ now: () => Date.parse('2026-11-23T09:00:00Z') });
    const body = {
      event: 'deposit.completed',
      data: {
        transactionId: 98765,
        trx_ref: 12345,
        status: 1,
        trx_type: 'fiat_buy',
        amount: 1500.5,
        receiver: { accountNumber: 123456789, bank: { code: 58, name: 'GTBank' } },
        occurredAt: Date.parse('2026-11-23T08:00:00Z'),
      },
      timestamp: Date.parse('2026-11-23T08:00:01Z') / 1000,
    };
    expect((await rig.send(body)).status).toBe(200);
    const post = await rig.fake.waitFor('chat.postMessage', (c) => JSON.stringify(c.body).includes('12345'));
    expect(post.body.text).toContain('Deposit credited: ₦1,500.50');
    expect(JSON.stringify(post.body)).toContain('Ref `12345`');
    expect(JSON.stringify(post.body)).toContain('Mon 23 Nov 2026, 09:00 WAT');
    // The numeric reference dedupes like a text one.
    expect((await rig.send({ ...body, data: { ...body.data, trx_ref: '12345' } })).body).toContain(
      'duplicate',
    );
    // An amount as a numeric string is read too.
    const text = webhookBody('withdrawal.completed', { trx_type: 'withdraw', amount: '2500', trx_ref: 77 });
    text.timestamp = '2026-11-23T08:30:00Z';
    delete (text.data as Record<string, unknown>).occurredAt;
    expect((await rig.send(text)).status).toBe(200);
    const withdrawal = await rig.fake.waitFor('chat.postMessage', (c) =>
      JSON.stringify(c.body).includes('Ref `77`'),
    );
    expect(withdrawal.body.text).toContain('₦2,500.00');
  });

  test('posts a signed event it cannot read strictly with the generic message, never dropping it', async ({
    startRig,
  }) => {
    const rig = await startRig();
    const odd = webhookBody('deposit.completed', {
      trx_ref: 'REF-ODD-AMOUNT',
      amount: { value: '1500', currency: 'NGN' },
      receiver: ['not', 'a', 'receiver'],
    });
    expect((await rig.send(odd)).status).toBe(200);
    const post = await rig.fake.waitFor('chat.postMessage', (c) =>
      JSON.stringify(c.body).includes('REF-ODD-AMOUNT'),
    );
    const all = JSON.stringify(post.body);
    expect(all).toContain('cNGN event `deposit.completed`');
    expect(all).toContain('could not be read');
    expect(all).toContain('`amount`');
    expect(all).toContain('`receiver`');
    expect((await rig.send({ event: 'deposit.completed', data: 17 })).status).toBe(200);
    expect((await rig.send({ event: 'deposit.received' })).status).toBe(200);
    await waitUntil(async () => rig.fake.callsTo('chat.postMessage').length === 3);
    // The outbox marks a post delivered once Slack has answered it: a moment after Slack saw it.
    await waitUntil(async () => (await rig.webhooks.outbox.pendingCount()) === 0);
    expect(rig.fake.callsTo('chat.postMessage')).toHaveLength(3);
  });

  test('acknowledges duplicates but posts each event once', async ({ startRig }) => {
    const rig = await startRig();
    const body = webhookBody('deposit.completed', { trx_ref: 'REF-DUP' });
    const replies = await Promise.all([rig.send(body), rig.send(body), rig.send(body)]);
    expect(replies.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(replies.filter((r) => r.body.includes('duplicate'))).toHaveLength(2);
    await rig.fake.waitFor('chat.postMessage', (c) => JSON.stringify(c.body).includes('REF-DUP'));
    expect((await rig.send(body)).body).toContain('duplicate');
    // Without a transactionId the key is event + trx_ref + status.
    const { transactionId: _, ...noId } = webhookBody('deposit.received', {
      trx_ref: 'REF-NOID',
      status: 'pending',
    }).data as Record<string, unknown>;
    const again = { event: 'deposit.received', data: noId };
    expect((await rig.send(again)).status).toBe(200);
    expect((await rig.send(again)).body).toContain('duplicate');
    const marker = webhookBody('deposit.completed', { trx_ref: 'REF-DUP-MARKER' });
    await rig.send(marker);
    await rig.fake.waitFor('chat.postMessage', (c) => JSON.stringify(c.body).includes('REF-DUP-MARKER'));
    await rig.fake.waitFor('chat.postMessage', (c) => JSON.stringify(c.body).includes('REF-NOID'));
    expect(postsMentioning(rig.fake, 'REF-DUP')).toHaveLength(2); // REF-DUP and REF-DUP-MARKER
    expect(postsMentioning(rig.fake, 'REF-NOID')).toHaveLength(1);
  });
});
