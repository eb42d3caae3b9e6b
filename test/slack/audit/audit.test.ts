// `/cngn audit verify` and `/cngn audit export` through the real bot: signed slash commands, the chain
// checked in the store the bot writes, files uploaded to the asker's DM the way files.uploadV2 does.
import { createHash } from 'node:crypto';
import { describe, expect } from 'vitest';
import { partsOf } from '../../../src/approvals/engine-parts.js';
import { type AuditEntry, canonicalJson } from '../../../src/audit/index.js';
import { auditListKey } from '../../../src/audit/log.js';
import { botTest as test } from '../../support/bot.js';
import { parseCsv } from '../../support/csv.js';
import { commandAnswer } from '../../support/slack-requests.js';
import {
  APPROVER_A,
  APPROVER_B,
  type ApprovalApp,
  approve,
  fileWithdrawal,
  OUTSIDER,
  openReject,
  submitReject,
} from '../approvals/support.js';

const LIST = auditListKey('sandbox');

/** Runs `/cngn <text>` as `userId` and returns the private answer's text and blocks. */
async function cngn(app: ApprovalApp, text: string, userId: string): Promise<string> {
  return JSON.stringify((await commandAnswer(app, text, userId)).body);
}

async function rejectWithReason(app: ApprovalApp, id: string, reason: string): Promise<void> {
  await submitReject(app, await openReject(app, id, APPROVER_A), APPROVER_A, reason);
  await app.slack.waitFor('chat.update', (c) => JSON.stringify(c.body.blocks).includes('Rejected'));
}

describe('/cngn audit verify', () => {
  test('says the chain is intact, then names the entry an edit broke', async ({ app }) => {
    const id = await fileWithdrawal(app, '1500');
    await approve(app, id, APPROVER_A);
    await app.slack.waitFor('chat.update', (c) => JSON.stringify(c.body.blocks).includes('Sent'));
    await app.engine.idle();
    const intact = await cngn(app, 'audit verify', APPROVER_B);
    expect(intact).toContain('Audit chain intact');
    expect(intact).toMatch(/\d+ entries checked/);

    // Someone with store access lowers the amount of the approval step.
    const entries = await app.store.readList<AuditEntry>(LIST, 0, -1);
    const approved = entries.findIndex((e) => e.action === 'approved');
    await app.store.set(`list:${LIST}#${approved}`, { ...entries[approved], amount: '15.00' });
    const broken = await cngn(app, 'audit verify', APPROVER_B);
    expect(broken).toContain('Audit chain broken');
    expect(broken).toContain(`entry #${approved + 1} (seq ${approved})`);
    expect(broken).toContain(`${id} withdraw *approved*`);
    expect(broken).toContain('it was edited');
  });

  test('is for approvers only', async ({ app }) => {
    await fileWithdrawal(app, '10');
    expect(await cngn(app, 'audit verify', OUTSIDER)).toContain('needs the *auditor* role');
  });
});

describe('/cngn audit export', () => {
  test('sends CSV and JSON Lines to the asker in a DM, with formulas made inert, and audits the export', async ({
    app,
  }) => {
    const id = await fileWithdrawal(app, '2500');
    await rejectWithReason(app, id, '=HYPERLINK("http://evil.example","click"), +1, @SUM(A1)');
    // What a replica leaves when its save of the request lost the race: chained, but never happened.
    await app.engine.recordAudit({
      at: new Date().toISOString(),
      requestId: id,
      kind: 'withdraw',
      action: 'approved',
      state: 'approved',
      actor: APPROVER_A,
      step: 7,
    });
    const answer = await cngn(app, 'audit export 1d', APPROVER_B);
    // The first start's record of the requests it sealed (none) comes first.
    expect(answer).toContain('Sent you 4 audit entries');

    const files = app.slack.sharedFiles();
    expect(files.map((f) => f.channel)).toEqual([`D${APPROVER_B}`, `D${APPROVER_B}`]);
    const csv = files.find((f) => f.filename.endsWith('.csv'));
    const jsonl = files.find((f) => f.filename.endsWith('.jsonl'));
    expect(csv?.content?.length).toBe(csv?.length);

    const rows = parseCsv(csv?.content?.toString('utf8') ?? '');
    const header = rows[0] ?? [];
    const column = (name: string) => header.indexOf(name);
    expect(rows.slice(1).map((r) => [r[column('action')], r[column('took_effect')]])).toEqual([
      ['requests-sealed', 'yes'],
      ['filed', 'yes'],
      ['rejected', 'yes'],
      ['approved', 'no'],
    ]);
    const rejected = rows[3] ?? [];
    expect(rejected[column('request')]).toBe(id);
    expect(rejected[column('note')]).toBe(`'=HYPERLINK("http://evil.example","click"), +1, @SUM(A1)`);
    expect(rejected[column('amount')]).toBe('2500.00');
    // No cell of the file starts with what a spreadsheet would run.
    for (const row of rows) for (const cell of row) expect(cell).not.toMatch(/^[=+\-@\t\r]/);

    // JSON Lines hold each entry as chained, and whether it took effect (as the CSV says): anyone can
    // recompute the hashes with SHA-256 alone, leaving out `hash` and `took_effect`.
    const lines = (jsonl?.content?.toString('utf8') ?? '')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as AuditEntry & { took_effect?: boolean });
    expect(lines.map((e) => [e.action, e.took_effect])).toEqual([
      ['requests-sealed', true],
      ['filed', true],
      ['rejected', true],
      ['approved', false],
    ]);
    for (const line of lines) {
      const { hash, took_effect: _tookEffect, ...rest } = line;
      expect(createHash('sha256').update(canonicalJson(rest)).digest('hex')).toBe(hash);
    }
    expect(lines[1]?.prev).toBe(lines[0]?.hash);
    expect(lines[1]?.figures?.payload).toMatchObject({ amount: '2500.00' });

    const [requested, exported] = (await app.engine.audit(5)).slice(-2);
    expect(requested).toMatchObject({ kind: 'audit', action: 'export-requested', actor: APPROVER_B });
    expect(requested?.exported).toBeUndefined();
    expect(exported).toMatchObject({ kind: 'audit', action: 'exported', actor: APPROVER_B });
    expect(await cngn(app, 'audit verify', APPROVER_A)).toContain('Audit chain intact');
  });

  test('keeps each payment’s purpose in the chain and in its own column of the CSV, made inert', async ({
    app,
  }) => {
    const purpose = '=HYPERLINK("http://evil.example","pay") supplier, INV-2231';
    const id = await fileWithdrawal(app, '2500', undefined, purpose);
    await rejectWithReason(app, id, 'wrong invoice');
    expect(await cngn(app, 'audit export 1d', APPROVER_B)).toContain('Sent you 3 audit entries');

    const files = app.slack.sharedFiles();
    const rows = parseCsv(files.find((f) => f.filename.endsWith('.csv'))?.content?.toString('utf8') ?? '');
    const header = rows[0] ?? [];
    expect(header.slice(header.indexOf('amount'), header.indexOf('amount') + 3)).toEqual([
      'amount',
      'purpose',
      'note',
    ]);
    const column = header.indexOf('purpose');
    expect(rows.slice(1).map((r) => [r[header.indexOf('action')], r[column]])).toEqual([
      ['requests-sealed', ''],
      ['filed', `'${purpose}`],
      ['rejected', `'${purpose}`],
    ]);
    const lines = (files.find((f) => f.filename.endsWith('.jsonl'))?.content?.toString('utf8') ?? '')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as AuditEntry);
    expect(lines.map((e) => e.figures?.purpose)).toEqual([undefined, purpose, purpose]);
    expect(await cngn(app, 'audit verify', APPROVER_A)).toContain('Audit chain intact');
  });

  test('shows a hidden or reordering character in the CSV as the marker Slack shows, and keeps it in JSON Lines', async ({
    app,
  }) => {
    const purpose = 'ADA OBI \u202eSESIRPRETNE';
    const id = await fileWithdrawal(app, '2500', undefined, purpose);
    await rejectWithReason(app, id, 'paid to\u200b the wrong \u202e=account');
    expect(await cngn(app, 'audit export 1d', APPROVER_B)).toContain('Sent you 3 audit entries');

    const files = app.slack.sharedFiles();
    const csv = files.find((f) => f.filename.endsWith('.csv'))?.content?.toString('utf8') ?? '';
    expect(csv).not.toMatch(/[\u202e\u200b]/u);
    const rows = parseCsv(csv);
    const header = rows[0] ?? [];
    const rejected = rows.find((r) => r[header.indexOf('action')] === 'rejected') ?? [];
    expect(rejected[header.indexOf('purpose')]).toBe('ADA OBI ⟨U+202E⟩SESIRPRETNE');
    expect(rejected[header.indexOf('note')]).toBe('paid to⟨U+200B⟩ the wrong ⟨U+202E⟩=account');
    expect(rejected[header.indexOf('figures')]).toContain('ADA OBI ⟨U+202E⟩SESIRPRETNE');
    // The JSON Lines file is the chain as it is: the character itself, under the hash.
    const jsonl = files.find((f) => f.filename.endsWith('.jsonl'))?.content?.toString('utf8') ?? '';
    const lines = jsonl
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as AuditEntry);
    expect(lines.map((e) => e.figures?.purpose)).toEqual([undefined, purpose, purpose]);
  });

  test('answers a bad range with the usage and sends nothing; outsiders get nothing', async ({ app }) => {
    await fileWithdrawal(app, '10');
    expect(await cngn(app, 'audit export yesterday', APPROVER_A)).toContain('is not a date');
    expect(await cngn(app, 'audit export 2026-11-30 2026-11-01', APPROVER_A)).toContain('must come before');
    expect(await cngn(app, 'audit export', OUTSIDER)).toContain('needs the *auditor* role');
    expect(app.slack.sharedFiles()).toEqual([]);
  });

  test('answers a duration that reaches back before 1970 by naming the bound; sends nothing', async ({
    app,
  }) => {
    await fileWithdrawal(app, '10');
    expect(await cngn(app, 'audit export 100000000d', APPROVER_A)).toContain(
      '`100000000d` (from) reaches back before 1970: give a shorter duration or a date (2026-11-01).',
    );
    expect(await cngn(app, 'audit export 2026-11-01 99999999999999999999w', APPROVER_A)).toContain(
      '`99999999999999999999w` (to) reaches back before 1970',
    );
    expect(app.slack.sharedFiles()).toEqual([]);
  });

  test('says so when Slack refuses the upload for a missing scope', async ({ app }) => {
    await fileWithdrawal(app, '10');
    app.slack.on('files.getUploadURLExternal', () => ({
      body: { ok: false, error: 'missing_scope', needed: 'files:write' },
    }));
    const answer = await cngn(app, 'audit export', APPROVER_A);
    expect(answer).toContain('missing_scope');
    expect(answer).toContain('files:write');
    // The request is on record; no `exported` entry, so retention does not count it.
    const actions = (await app.engine.audit(5)).map((e) => e.action);
    expect(actions.at(-1)).toBe('export-requested');
    expect(actions).not.toContain('exported');
  });

  test('sends nothing when the request for an export cannot be recorded', async ({ app }) => {
    await fileWithdrawal(app, '10');
    const exports = partsOf(app.engine).auditExports;
    const begin = exports.begin.bind(exports);
    exports.begin = async () => {
      throw new Error('the store is not answering');
    };
    try {
      expect(await cngn(app, 'audit export', APPROVER_A)).toContain('something went wrong');
    } finally {
      exports.begin = begin;
    }
    expect(app.slack.sharedFiles()).toEqual([]);
    expect(app.slack.callsTo('files.getUploadURLExternal')).toEqual([]);
  });
});
