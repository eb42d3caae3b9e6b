// The workbench's "Require passkeys" switches the running bot's signing rule. The audit chain's newest
// settings are what the verifier judges signatures by, so each switch is on the record before it holds:
// the chain read back says the rule in force, and the verifier finds nothing wrong with an unsigned
// click made while it was off or a signed approval made once it was on again. It holds as soon as it is
// recorded: the post to the approvals channel comes after, so a slow Slack leaves no click judged by the
// old rule while the chain names the new one.
import { describe, expect } from 'vitest';
import { checkApprovalEvidence } from '../../src/audit/approval-evidence.js';
import type { AuditEntry } from '../../src/audit/index.js';
import {
  registerApproved,
  type SigningApp,
  signingToken,
  signWith,
  startSigningApp,
} from '../signing/support.js';
import { APPROVER_A, APPROVER_B, approve, fileWithdrawal, waitUntil } from '../slack/approvals/support.js';
import { SoftwareAuthenticator } from '../support/authenticator.js';
import { botTest } from '../support/bot.js';

/** A bot whose signing rule may be switched, with A's and B's passkeys registered as its first two. */
const test = botTest.extend('signing', async ({ defer }) => {
  const app = await startSigningApp({ recordPolicy: true, switchable: true });
  defer(() => app.stop());
  const a = new SoftwareAuthenticator({ user: APPROVER_A, rpId: 'localhost', origin: app.signingUrl });
  const b = new SoftwareAuthenticator({ user: APPROVER_B, rpId: 'localhost', origin: app.signingUrl });
  await registerApproved(app, a, APPROVER_B);
  await registerApproved(app, b, APPROVER_A);
  return { app, a };
});

/** The signing rule the newest settings entry of the chain records (undefined: none, approvals unsigned). */
async function recordedRule(app: SigningApp): Promise<unknown> {
  const settings = (await app.engine.audit(1000)).findLast((e) => e.kind === 'policy' && e.policy?.settings);
  return settings?.policy?.settings?.find((s) => s.name === 'signed approvals')?.value;
}

const sent = (app: SigningApp, id: string) =>
  waitUntil(async () => (await app.engine.get(id))?.state === 'sent', `${id} sent`);

describe('the signing rule switched while the bot runs', () => {
  test('is on the audit record before it holds, and the chain verifies across the switches', async ({
    signing: { app, a },
  }) => {
    expect(await recordedRule(app)).toBe(`all at ${app.signingUrl}`);
    expect(await app.engine.switchSigningRule({ mode: 'off' })).toBe(true);
    expect(await recordedRule(app)).toBeUndefined();
    const clicked = await fileWithdrawal(app, '4000');
    await approve(app, clicked, APPROVER_A);
    await sent(app, clicked);
    expect(await app.engine.switchSigningRule({ mode: 'all' })).toBe(true);
    expect(await recordedRule(app)).toBe(`all at ${app.signingUrl}`);
    const signed = await fileWithdrawal(app, '5000');
    const { submitted } = await signWith(app, await signingToken(app, APPROVER_A, signed), a);
    expect(submitted.status).toBe(200);
    await sent(app, signed);
    const chain: AuditEntry[] = await app.engine.audit(1000);
    const report = checkApprovalEvidence(chain.map((entry) => ({ entry, segment: 'store' })));
    expect(report.problems).toEqual([]);
    expect(report.unknown).toEqual([]);
    expect(report.signatures).toBeGreaterThan(0);
  });

  test('holds as soon as it is recorded, while its post to the approvals channel is still on its way', async ({
    signing: { app, a },
  }) => {
    expect(await app.engine.switchSigningRule({ mode: 'off' })).toBe(true);
    let posting!: () => void;
    const posted = new Promise<void>((resolve) => {
      posting = resolve;
    });
    let release!: () => void;
    const slackAnswers = new Promise<void>((resolve) => {
      release = resolve;
    });
    app.engine.onPolicyRecorded(async () => {
      posting();
      await slackAnswers;
    });
    const switching = app.engine.switchSigningRule({ mode: 'all' });
    await posted;
    expect(await recordedRule(app)).toBe(`all at ${app.signingUrl}`);
    const id = await fileWithdrawal(app, '4000');
    await approve(app, id, APPROVER_A);
    const { submitted } = await signWith(app, await signingToken(app, APPROVER_A, id), a);
    expect(submitted.status).toBe(200);
    await sent(app, id);
    release();
    expect(await switching).toBe(true);
    const chain: AuditEntry[] = await app.engine.audit(1000);
    const report = checkApprovalEvidence(chain.map((entry) => ({ entry, segment: 'store' })));
    expect(report.problems).toEqual([]);
  });
});
