// Rotating the webhook secret: while CNGN_WEBHOOK_SECRET_PREVIOUS is set, a delivery signed with it is
// accepted too and its line says which secret verified it; once removed, only the current one is.
import { describe, expect } from 'vitest';
import { signatureFor } from '../../src/webhooks/index.js';
import { capturedLog } from '../support/captured-log.js';
import { postWebhook, recordingLogger, webhookBody } from '../support/webhook-rig.js';
import { webhooksTest as test } from '../support/webhooks.js';

const OLD = 'whsec_the_old_secret';

describe('webhook secret rotation', () => {
  test('accepts a delivery signed with the previous secret while it is set, and says so at start-up', async ({
    startRig,
  }) => {
    const log = recordingLogger();
    const rig = await startRig({ previousSecret: OLD, log });
    expect(log.lines).toContainEqual(expect.stringMatching(/^info CNGN_WEBHOOK_SECRET_PREVIOUS is set/));
    expect(log.lines.join('\n')).not.toContain(OLD);

    const old = webhookBody('deposit.completed', { trx_ref: 'REF-OLD' });
    expect((await rig.send(old, { secret: OLD })).status).toBe(200);
    const current = webhookBody('deposit.completed', { trx_ref: 'REF-NEW' });
    expect((await rig.send(current)).status).toBe(200);
    await rig.fake.waitFor('chat.postMessage', (c) => JSON.stringify(c.body).includes('REF-OLD'));
    await rig.fake.waitFor('chat.postMessage', (c) => JSON.stringify(c.body).includes('REF-NEW'));
    expect(log.lines.filter((line) => line.includes('verified with'))).toEqual([
      'info webhook deposit.completed verified with the previous secret',
      'info webhook deposit.completed verified with the current secret',
    ]);
  });

  test('names the secret that verified a delivery as a field of its line', async ({ startRig }) => {
    const { logger, entries } = capturedLog('info');
    const rig = await startRig({ previousSecret: OLD, log: logger });
    expect((await rig.send(webhookBody('deposit.completed'), { secret: OLD })).status).toBe(200);
    const verified = entries.find((entry) => String(entry.message).includes('verified with'));
    expect(verified).toMatchObject({ verifiedBy: 'previous', level: 'info' });
    expect(JSON.stringify(entries)).not.toContain(OLD);
  });

  test('refuses a delivery signed with the previous secret once it is removed, writing no such lines', async ({
    startRig,
  }) => {
    const log = recordingLogger();
    const rig = await startRig({ log });
    expect((await rig.send(webhookBody('deposit.completed'), { secret: OLD })).status).toBe(401);
    expect((await rig.send(webhookBody('deposit.completed', { trx_ref: 'REF-NOW' }))).status).toBe(200);
    expect(log.lines.filter((line) => /PREVIOUS|verified with/.test(line))).toEqual([]);
  });

  test('refuses a delivery signed with neither secret, as without a previous one', async ({ startRig }) => {
    const rig = await startRig({ previousSecret: OLD });
    const raw = JSON.stringify(webhookBody('deposit.completed'));
    const reply = await rig.send(raw, { signature: signatureFor(raw, 'whsec_neither') });
    expect(reply.status).toBe(401);
    expect(reply.body).toContain('bad signature');
    // Signed over other bytes with the previous secret: refused too.
    const other = await rig.send(`${raw} `, { signature: signatureFor(raw, OLD) });
    expect(other.status).toBe(401);
    expect(await rig.webhooks.outbox.pendingCount()).toBe(0);
  });

  test('the running bot takes the previous secret from its configuration', async ({ startHarness }) => {
    const log = recordingLogger();
    const harness = await startHarness({
      logger: log,
      config: { webhookSecret: 'whsec_the_new_secret', webhookSecretPrevious: OLD },
    });
    const url = `${harness.bot.url}/webhooks/cngn`;
    expect(log.lines).toContainEqual(expect.stringMatching(/^info CNGN_WEBHOOK_SECRET_PREVIOUS is set/));
    const body = webhookBody('deposit.completed', { trx_ref: 'REF-WIRED' });
    expect((await postWebhook(url, body, OLD)).status).toBe(200);
    expect((await postWebhook(url, body, 'whsec_the_new_secret')).status).toBe(200);
    expect((await postWebhook(url, body, 'whsec_neither')).status).toBe(401);
    expect(log.lines.filter((line) => line.includes('verified with'))).toEqual([
      'info webhook deposit.completed verified with the previous secret',
      'info webhook deposit.completed verified with the current secret',
    ]);
  });
});
