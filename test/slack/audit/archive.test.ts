// The signed audit archive through the real bot on a SQLite file: `/cngn audit archive` and `audit
// verify` (the public key an auditor checks with), retention that counts the archive and not a DM
// export, a segment at a clean shutdown, and the check at start that posts a break to the approvals
// channel and shows it on /healthz while /readyz stays ready.
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import type { ChainHead } from '../../../src/audit/chain.js';
import { auditHeadKey, auditListKey } from '../../../src/audit/log.js';
import { createStore } from '../../../src/store/index.js';
import { botTest } from '../../support/bot.js';
import { commandAnswer } from '../../support/slack-requests.js';
import {
  APPROVALS_CHANNEL,
  APPROVER_A,
  APPROVER_B,
  type ApprovalApp,
  type ApprovalAppOptions,
  fileWithdrawal,
  REQUESTER,
} from '../approvals/support.js';

const HEAD = auditHeadKey('sandbox');
const LENGTH = `list:${auditListKey('sandbox')}#length`;

/** A SQLite store in a folder of the test's own: the key, the marks and the archive go beside it. */
const test = botTest.extend('desk', async ({ defer }) => {
  const dir = mkdtempSync(join(tmpdir(), 'cngn-audit-bot-'));
  const storeUrl = `sqlite://${join(dir, 'desk.sqlite')}`;
  const store = await createStore(storeUrl);
  defer(() => rmSync(dir, { recursive: true, force: true }));
  defer(() => store.close());
  const archive = join(dir, 'audit-archive');
  const options = (more: ApprovalAppOptions = {}): ApprovalAppOptions => ({
    store,
    ...more,
    config: { storeUrl, auditArchiveDir: archive, auditArchiveEveryMs: 86_400_000, ...more.config },
  });
  return { dir, store, archive, options };
});

async function cngn(app: ApprovalApp, text: string, userId: string): Promise<string> {
  return JSON.stringify((await commandAnswer(app, text, userId)).body);
}

const segments = (folder: string) => readdirSync(folder).filter((name) => !name.startsWith('.'));

describe('/cngn audit archive and verify', () => {
  test('writes a segment signed with the key verify shows; approvers only', async ({ startApp, desk }) => {
    const app = await startApp(desk.options());
    await fileWithdrawal(app, '1500');
    const verified = await cngn(app, 'audit verify', APPROVER_A);
    expect(verified).toContain('Audit chain intact');
    const key = /its public key is `([0-9a-f]{64})`/.exec(verified)?.[1];
    expect(key).toBeDefined();
    expect(verified).toContain('nothing archived yet');

    expect(await cngn(app, 'audit archive', REQUESTER)).toContain('Archived seq 0 to 1 (2 entries)');
    expect(await cngn(app, 'audit archive', 'UOUTSIDER')).toContain('needs the *auditor* role');
    expect(await cngn(app, 'audit archive', APPROVER_B)).toContain('Nothing new to archive');
    const after = await cngn(app, 'audit verify', APPROVER_B);
    expect(after).toContain(`--key ${key}`);
    expect(after).toContain('Archive: 1 segment in');
    expect(segments(join(desk.archive, 'sandbox'))).toHaveLength(1);
    // The key the bot made, and its marks, are beside the SQLite file, never in the store.
    expect(statSync(join(desk.dir, 'desk.audit-signing-key.pem')).mode & 0o777).toBe(0o600);
    expect(existsSync(join(desk.dir, 'desk.audit-heads.json'))).toBe(true);
  });

  test('says the chain is broken after the newest entry is deleted from the SQLite file and the head rolled back', async ({
    startApp,
    desk,
  }) => {
    const app = await startApp(desk.options());
    await fileWithdrawal(app, '10');
    const earlier = await desk.store.get<ChainHead>(HEAD);
    await fileWithdrawal(app, '20');
    await desk.store.set(LENGTH, 2);
    await desk.store.set(HEAD, earlier);
    const broken = await cngn(app, 'audit verify', APPROVER_A);
    expect(broken).toContain('Audit chain broken');
    expect(broken).toContain('the head is at seq 1, but this bot signed or checked seq 2');
  });
});

describe('a deleted newest archive segment', () => {
  test('is noticed after a restart: verify and the check at start name the segment the store recorded', async ({
    startApp,
    desk,
  }) => {
    const first = await startApp(desk.options());
    await fileWithdrawal(first, '10');
    expect(await cngn(first, 'audit archive', APPROVER_A)).toContain('Archived seq 0 to 1');
    await fileWithdrawal(first, '20');
    expect(await cngn(first, 'audit archive', APPROVER_A)).toContain('Archived seq 2 to 2');
    await first.stop();
    const folder = join(desk.archive, 'sandbox');
    const [kept, newest] = segments(folder).sort();
    rmSync(join(folder, newest ?? ''), { recursive: true, force: true });

    const second = await startApp(desk.options());
    const posted = await second.slack.waitFor('chat.postMessage', (c) =>
      JSON.stringify(c.body).includes('Audit chain broken'),
    );
    expect(JSON.stringify(posted.body)).toContain(`the store records segment ${newest}`);
    const verified = await cngn(second, 'audit verify', APPROVER_A);
    expect(verified).toContain('Audit chain broken');
    expect(verified).toContain(`the archive ends at segment ${kept} (seq 1)`);
    expect(verified).toContain(`ends at segment \`${kept}\``);
  });
});

describe('audit retention', () => {
  test('removes entries once an archive segment holds them, never for a DM export', async ({
    startApp,
    desk,
  }) => {
    const app = await startApp(desk.options({ auditRetentionMs: 1 }));
    await fileWithdrawal(app, '700');
    expect(await cngn(app, 'audit export', APPROVER_A)).toContain('Sent you 2 audit entries');
    expect(await app.engine.applyAuditRetention()).toBe(0);
    expect((await app.engine.auditRange(undefined, undefined)).map((e) => e.action)).toEqual([
      'requests-sealed',
      'filed',
      'export-requested',
      'exported',
    ]);
    // The segment holds all four; retention then removes them, and the log records the cut.
    expect(await cngn(app, 'audit archive', APPROVER_A)).toContain('Archived seq 0 to 3');
    expect((await app.engine.auditRange(undefined, undefined)).map((e) => e.action)).toEqual(['cut', 'cut']);
    const verified = await cngn(app, 'audit verify', APPROVER_B);
    expect(verified).toContain('Audit chain intact');
    expect(verified).toContain('4 archived entries removed in all');
  });
});

describe('the audit check at start', () => {
  test('posts a break to the approvals channel and shows it on /healthz; a clean stop archived first', async ({
    startApp,
    desk,
  }) => {
    const first = await startApp(desk.options());
    await fileWithdrawal(first, '10');
    await first.stop();
    expect(segments(join(desk.archive, 'sandbox'))).toHaveLength(1); // written at the clean shutdown

    await desk.store.set(LENGTH, 0);
    await desk.store.delete(HEAD);
    const second = await startApp(desk.options());
    const posted = await second.slack.waitFor('chat.postMessage', (c) =>
      JSON.stringify(c.body).includes('Audit chain broken'),
    );
    expect(posted.body.channel).toBe(APPROVALS_CHANNEL);
    expect(JSON.stringify(posted.body)).toContain('the audit log is empty and has no head');
    expect(JSON.stringify(posted.body)).toContain(
      'no start seals a request that stands without a filing seal',
    );

    const health = await fetch(`${second.adminUrl}/healthz`);
    expect(health.status).toBe(200);
    const body = (await health.json()) as { ok: boolean; audit: { ok: boolean; problems: string[] } };
    expect(body.ok).toBe(true);
    expect(body.audit.ok).toBe(false);
    expect(body.audit.problems.join(' ')).toContain('its entries were deleted');
    expect((await fetch(`${second.adminUrl}/readyz`)).status).toBe(200);
  });
});
