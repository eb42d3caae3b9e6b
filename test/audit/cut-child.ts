// A replica of the audit trail in a process of its own, for the crash test of retention cuts: it opens
// the SQLite file, starts the keeper (the check at start), appends AUDIT_APPEND entries, writes a
// segment (retention follows it) and prints what the check then says, as one JSON line. With
// CNGN_DESK_CRASH_AT set it kills itself with SIGKILL at that step, as a power cut would.
import { join } from 'node:path';
import { AuditKeeper } from '../../src/audit/keeper.js';
import { AuditLog } from '../../src/audit/log.js';
import { HeadMarks, loadOrCreateSigningKey } from '../../src/audit/signing.js';
import { armCrashPoint } from '../../src/crash-points.js';
import { createStore } from '../../src/store/index.js';

const env = (name: string) => {
  const value = process.env[name];
  if (value === undefined) throw new Error(`${name} is not set`);
  return value;
};

armCrashPoint(process.env.CNGN_DESK_CRASH_AT);
const dir = env('AUDIT_DIR');
const now = new Date(env('AUDIT_NOW'));
const store = await createStore(`sqlite://${join(dir, 'desk.sqlite')}`);
const log = new AuditLog(store);
const keeper = new AuditKeeper({
  store,
  log,
  environment: 'sandbox',
  openRequests: async () => [],
  seal: {
    // Where the bot keeps them beside a SQLite file, so the bot itself can check the result.
    signer: loadOrCreateSigningKey(join(dir, 'desk.audit-signing-key.pem')).signer,
    marks: new HeadMarks(join(dir, 'desk.audit-heads.json')),
  },
  archiveDir: join(dir, 'audit-archive'),
  retentionMs: Number(env('AUDIT_RETENTION_MS')),
  now: () => now,
});
await keeper.start();
const started = await keeper.check();
const from = Number(env('AUDIT_FROM'));
for (let n = from; n < from + Number(env('AUDIT_APPEND')); n++) {
  await log.append('sandbox', {
    at: now.toISOString(),
    requestId: `AR-${String(n).padStart(10, '0')}`,
    kind: 'withdraw',
    action: 'approved',
    state: 'approved',
    actor: 'UAPPROVERA',
    amount: `${1000 + n}.00`,
  });
}
const outcome = await keeper.archiveNow('schedule');
const check = await keeper.check();
const seqs = (await log.entries('sandbox')).map((entry) => entry.seq ?? null);
process.stdout.write(
  `${JSON.stringify({
    startedOk: started.ok,
    outcome,
    ok: check.ok,
    broken: check.chain.broken?.kind ?? null,
    problems: check.problems.map((p) => p.text),
    cut: check.chain.cut?.count ?? 0,
    seqs,
    publicKey: keeper.publicKey,
  })}\n`,
);
await store.close();
