// A replica of the audit trail in a process of its own, for the crash test of retention cuts: it opens
// the SQLite file at AUDIT_NOW, starts the keeper (the check at start, which completes a cut a kill
// stopped) and prints what the check then says, as one JSON line; then, at AUDIT_SEGMENT_AT, appends
// AUDIT_APPEND entries, writes a segment (retention follows it) and prints what the check says, as
// another. With CNGN_DESK_CRASH_AT set it kills itself with SIGKILL at that step of the segment or the
// cut, as a power cut would (armed once started, so the check at start has been said).
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

const dir = env('AUDIT_DIR');
let now = new Date(env('AUDIT_NOW'));
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
const seqsNow = async () => (await log.entries('sandbox')).map((entry) => entry.seq ?? null);
process.stdout.write(
  `${JSON.stringify({
    ok: started.ok,
    broken: started.chain.broken?.kind ?? null,
    problems: started.problems.map((p) => p.text),
    seqs: await seqsNow(),
  })}\n`,
);
now = new Date(env('AUDIT_SEGMENT_AT'));
armCrashPoint(process.env.CNGN_DESK_CRASH_AT);
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
const seqs = await seqsNow();
process.stdout.write(
  `${JSON.stringify({
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
