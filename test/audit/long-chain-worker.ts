// A long audit chain read in a worker thread whose stack the test chose (verified-read.test.ts): it
// chains `count` entries, the second a revocation, rewrites the first as a store writer would, signs
// the head, and reads the delegations back with VerifiedDelegations. It answers whether spreading the
// chain into one call overflows this thread's stack (the size's premise) and what the read found; a
// read that overflows fails the worker.
import { generateKeyPairSync } from 'node:crypto';
import { parentPort, workerData } from 'node:worker_threads';
import { chainEntry } from '../../src/audit/chain.js';
import type { AuditEntry } from '../../src/audit/index.js';
import { AuditSigner, HeadMarks } from '../../src/audit/signing.js';
import { type ChainReader, VerifiedDelegations } from '../../src/audit/verified-read.js';

export interface LongChainSaid {
  spreadOverflows: boolean;
  filedAfter: number;
  revoked: boolean;
  at: number;
}

const { count } = workerData as { count: number };
const at = '2026-11-01T09:00:00.000Z';
const entries: AuditEntry[] = [];
for (let i = 0; i < count; i += 1) {
  const step =
    i === 1
      ? {
          requestId: 'AR-DELEGATED',
          kind: 'delegation' as const,
          action: 'delegation-revoked',
          state: 'completed' as const,
          actor: 'U_CHIDI',
          figures: {
            payload: { delegator: 'U_CHIDI', delegate: 'U_BOLA', until: at },
            display: {},
            requiredApprovals: 1,
            approvals: ['U_ADE'],
          },
        }
      : {
          requestId: `AR-${String(i).padStart(10, '0')}`,
          kind: 'withdraw' as const,
          action: 'approved',
          state: 'approved' as const,
          actor: 'UAPPROVERA',
          amount: `${1000 + i}.00`,
        };
  entries.push(chainEntry({ at, environment: 'sandbox', ...step }, entries.at(-1)));
}

let spreadOverflows = false;
try {
  Math.max(...entries.map((e) => e.seq ?? 0));
} catch (error) {
  spreadOverflows = error instanceof RangeError;
}

const last = entries.at(-1) as AuditEntry;
const stored = entries.map((entry, i) => (i === 0 ? { ...entry, note: 'rewritten' } : entry));
const signer = new AuditSigner(generateKeyPairSync('ed25519').privateKey, 'test key');
const head = signer.signHead('sandbox', { seq: last.seq ?? 0, hash: last.hash ?? '' });
const log: ChainReader = {
  head: async () => head,
  entries: async () => stored,
  latest: async (_environment, latest) => stored.slice(-latest),
};
const read = await new VerifiedDelegations(log, 'sandbox', { signer, marks: new HeadMarks() }).read();
const said: LongChainSaid = {
  spreadOverflows,
  filedAfter: read.filedAfter,
  revoked: read.revoked.has('AR-DELEGATED'),
  at: Date.parse(at),
};
parentPort?.postMessage(said);
