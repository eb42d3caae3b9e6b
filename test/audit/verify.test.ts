// The audit verifier in TypeScript (runVerifier), which the bot trusts its archive with, on a good
// archive and on one with an edited byte, a removed line, a reordered segment, a missing segment or a
// wrong key. The standalone verifier, as an auditor runs it (scripts/audit-verify.mjs, the same code
// bundled, in a Node process of its own: nothing but Node, no store, no network), must say the same,
// line for line, of the good archive (with --key and with --key-file), of the one with an edited byte
// and of one re-signed whole without a key (it fails closed), and pass an archive of entries holding
// every kind of text; the other cases run in TypeScript only.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect } from 'vitest';
import { PolicyRecorder } from '../../src/approvals/policy-recorder.js';
import type { AuditEntry } from '../../src/approvals/types.js';
import { chainEntry } from '../../src/audit/chain.js';
import { sha256Hex } from '../../src/audit/crypto.js';
import type { AuditDraft } from '../../src/audit/log.js';
import {
  ENTRIES_FILE,
  entriesText,
  MANIFEST_FILE,
  manifestText,
  type SegmentManifest,
} from '../../src/audit/segments.js';
import { runVerifier } from '../../src/audit/verify-cli.js';
import { copyArchive } from '../support/approver-archive.js';
import { type AuditReplica, auditTest, newSigner } from '../support/audit-archive.js';
import { auditDraft } from '../support/engine.js';

const SCRIPT = fileURLToPath(new URL('../../scripts/audit-verify.mjs', import.meta.url));

/** The script, run as an auditor would: `node audit-verify.mjs <args>`, in an empty environment. */
function script(args: string[]): { status: number | null; lines: string[] } {
  const run = spawnSync(process.execPath, [SCRIPT, ...args], { encoding: 'utf8', env: {} });
  return { status: run.status, lines: run.stdout.trimEnd().split('\n') };
}

/** The same check in TypeScript. */
function typescript(args: string[]): { status: number; lines: string[] } {
  const lines: string[] = [];
  const status = runVerifier(args, (line) => lines.push(...line.split('\n')));
  return { status, lines };
}

/** The verifier in TypeScript; with `standalone`, the script on the same words too, which must agree. */
function verify(args: string[], { standalone = false } = {}): { status: number; lines: string[] } {
  const ts = typescript(args);
  if (standalone) expect(script(args)).toEqual(ts);
  return ts;
}

const problems = (lines: string[]) => lines.filter((line) => line.startsWith('PROBLEM '));

/** Three segments: seq 0–3, 4–7, 8–11. */
async function threeSegments(replica: AuditReplica): Promise<string[]> {
  for (let part = 0; part < 3; part++) {
    for (let n = part * 4; n < part * 4 + 4; n++) await replica.log.append('sandbox', auditDraft(n));
    await replica.keeper.archiveNow('schedule');
  }
  const folder = replica.keeper.archive?.folder ?? '';
  return readdirSync(folder)
    .filter((name) => !name.startsWith('.'))
    .sort();
}

function edit(path: string, change: (text: string) => string): void {
  writeFileSync(path, change(readFileSync(path, 'utf8')));
}

/**
 * What a forger with write access to the archive but not the bot's key can do: every entry edited,
 * the chain's hashes recomputed, every manifest rewritten and signed with a key of their own.
 */
function resignedWithFreshKey(root: string): string {
  const forger = newSigner('forger');
  const folder = join(root, 'sandbox');
  let previous: AuditEntry | undefined;
  for (const name of readdirSync(folder)
    .filter((n) => !n.startsWith('.'))
    .sort()) {
    const manifestPath = join(folder, name, MANIFEST_FILE);
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as SegmentManifest;
    const entries = readFileSync(join(folder, name, ENTRIES_FILE), 'utf8')
      .trim()
      .split('\n')
      .map((line) => {
        const { seq: _seq, prev: _prev, hash: _hash, ...draft } = JSON.parse(line) as AuditEntry;
        previous = chainEntry({ ...draft, amount: '1.00' }, previous);
        return previous;
      });
    const text = entriesText(entries);
    const last = entries.at(-1) as AuditEntry;
    const first = entries[0] as AuditEntry;
    const unsigned = {
      ...manifest,
      previousHead: { seq: (first.seq ?? 0) - 1, hash: first.prev ?? '' },
      head: { seq: last.seq ?? 0, hash: last.hash ?? '' },
      entries: { ...manifest.entries, sha256: sha256Hex(text), bytes: Buffer.byteLength(text) },
      key: forger.publicKey,
    };
    writeFileSync(join(folder, name, ENTRIES_FILE), text);
    writeFileSync(
      manifestPath,
      JSON.stringify({ ...unsigned, signature: forger.sign(manifestText(unsigned)) }),
    );
  }
  return root;
}

describe('the audit verifier', () => {
  auditTest(
    'finds nothing wrong with an archive the bot wrote, given its key, and says where it ends, the standalone script saying the same',
    async ({ oneReplica, auditReplica, auditDir, signer }) => {
      const a = await oneReplica('audit-verify-good');
      const names = await threeSegments(auditReplica(a));
      const archive = join(auditDir, 'archive');
      const withKey = verify([archive, '--key', signer.publicKey], { standalone: true });
      const head = JSON.parse(
        readFileSync(join(archive, 'sandbox', names[2] ?? '', MANIFEST_FILE), 'utf8'),
      ) as SegmentManifest;
      expect(withKey.status).toBe(0);
      expect(withKey.lines).toEqual([
        `Checking the audit archive at ${archive}`,
        `sandbox: 3 segments, seq 0 to 11 (12 entries), signed by ${signer.publicKey}`,
        `sandbox: ends at segment ${names[2]} (seq 11, hash ${head.head.hash})`,
        'No problems: every signature, hash and link checks out.',
      ]);
      const keyFile = join(auditDir, 'bot-public-key.txt');
      writeFileSync(keyFile, `${signer.publicKey}\n`);
      expect(verify([archive, '--key-file', keyFile], { standalone: true })).toEqual(withKey);
    },
  );

  auditTest(
    'fails closed without a key: an archive edited and re-signed whole with a fresh key is not passed, the standalone script saying the same',
    async ({ oneReplica, auditReplica, auditDir, signer }) => {
      const a = await oneReplica('audit-verify-resigned');
      await threeSegments(auditReplica(a));
      const forged = resignedWithFreshKey(copyArchive(join(auditDir, 'archive'), join(auditDir, 'forged')));
      const withoutKey = verify([forged], { standalone: true });
      expect(problems(withoutKey.lines)).toEqual([]);
      expect(withoutKey.lines.at(-1)).toContain('NOT VERIFIED: signatures not checked against a known key');
      expect(withoutKey.lines.join('\n')).not.toContain('No problems');
      expect(withoutKey.status).toBe(3);
      const pinned = verify([forged, '--key', signer.publicKey]);
      expect(pinned.status).toBe(1);
      expect(problems(pinned.lines)).toHaveLength(3);
    },
  );

  auditTest(
    'checks an archive holding policy entries like any other',
    async ({ oneReplica, auditReplica, auditDir, signer }) => {
      const a = await oneReplica('audit-verify-policy');
      const replica = auditReplica(a);
      const recorder = new PolicyRecorder({
        store: a,
        log: replica.log,
        environment: 'sandbox',
        now: () => new Date(),
      });
      await replica.log.append('sandbox', auditDraft(0));
      await recorder.recordAtStart([{ name: 'tiers', value: '0:1,1000000:2' }]);
      await recorder.recordMembershipChange('S0TREASURY', ['U0EFE'], []);
      await replica.keeper.archiveNow('schedule');
      const run = verify([join(auditDir, 'archive'), '--key', signer.publicKey]);
      expect(run.status).toBe(0);
      expect(run.lines).toContain(
        `sandbox: 1 segment, seq 0 to 2 (3 entries), signed by ${signer.publicKey}`,
      );
    },
  );

  auditTest(
    'checks a chain whose older policy entries hold mention markup and newer ones ID tokens',
    async ({ oneReplica, auditReplica, auditDir, signer }) => {
      const a = await oneReplica('audit-verify-policy-mentions');
      const replica = auditReplica(a);
      const recorder = new PolicyRecorder({
        store: a,
        log: replica.log,
        environment: 'sandbox',
        now: () => new Date(),
      });
      // As a policy entry was written before its lines held IDs: Slack markup in its text.
      const old = 'members of <!subteam^S0TREASURY>: +<@U0EFE>';
      await replica.log.append('sandbox', {
        at: new Date().toISOString(),
        kind: 'policy',
        action: 'policy-changed',
        actor: 'system',
        subject: 'members of S0TREASURY',
        note: old,
        policy: { changes: [old], group: 'S0TREASURY', added: ['U0EFE'], removed: [] },
      });
      await recorder.recordMembershipChange('S0TREASURY', ['U0BOLA'], []);
      const [before, after] = await replica.log.entries('sandbox');
      expect(before?.note).toBe(old);
      expect(after?.note).toBe('members of @S0TREASURY: +@U0BOLA');
      expect(JSON.stringify(after)).not.toMatch(/<[@!]/);
      expect((await replica.log.verify('sandbox')).ok).toBe(true);
      await replica.keeper.archiveNow('schedule');
      const run = verify([join(auditDir, 'archive'), '--key', signer.publicKey]);
      expect(run.status).toBe(0);
    },
  );

  auditTest(
    'names an edited byte (the standalone script saying the same), a removed line, a reordered segment and a missing one',
    async ({ oneReplica, auditReplica, auditDir, signer }) => {
      const a = await oneReplica('audit-verify-bad');
      const [first, second, third] = await threeSegments(auditReplica(a));
      const archive = join(auditDir, 'archive');
      const key = ['--key', signer.publicKey];
      const entriesOf = (root: string, segment = '') => join(root, 'sandbox', segment, ENTRIES_FILE);

      const edited = copyArchive(archive, join(auditDir, 'edited'));
      edit(entriesOf(edited, second), (text) => text.replace('"amount":"1005.00"', '"amount":"1006.00"'));
      const editedRun = verify([edited, ...key], { standalone: true });
      expect(editedRun.status).toBe(1);
      expect(problems(editedRun.lines)).toEqual([
        `PROBLEM sandbox/${second}: ${ENTRIES_FILE} is not the file its manifest signed (its SHA-256 differs): it was changed`,
        `PROBLEM sandbox/${second}: line 2 (seq 5): its content no longer matches its hash: edited`,
      ]);
      expect(editedRun.lines.at(-1)).toBe('2 problems found.');

      const removed = copyArchive(archive, join(auditDir, 'removed'));
      edit(entriesOf(removed, first), (text) =>
        text
          .split('\n')
          .filter((_, i) => i !== 1)
          .join('\n'),
      );
      expect(problems(verify([removed, ...key]).lines)).toEqual([
        `PROBLEM sandbox/${first}: ${ENTRIES_FILE} is not the file its manifest signed (its SHA-256 differs): it was changed`,
        `PROBLEM sandbox/${first}: line 2 (seq 2): seq 1 missing before it`,
      ]);

      const reordered = copyArchive(archive, join(auditDir, 'reordered'));
      edit(entriesOf(reordered, third), (text) => {
        const lines = text.split('\n');
        [lines[1], lines[2]] = [lines[2] ?? '', lines[1] ?? ''];
        return lines.join('\n');
      });
      expect(problems(verify([reordered, ...key]).lines)).toEqual([
        `PROBLEM sandbox/${third}: ${ENTRIES_FILE} is not the file its manifest signed (its SHA-256 differs): it was changed`,
        `PROBLEM sandbox/${third}: line 2 (seq 10): out of order (seq 9 belongs here)`,
      ]);

      const gap = copyArchive(archive, join(auditDir, 'gap'));
      rmSync(join(gap, 'sandbox', second ?? ''), { recursive: true });
      expect(problems(verify([gap, ...key]).lines)).toEqual([
        `PROBLEM sandbox/${third}: seq 4 to 7 missing between segment ${first} and it`,
      ]);
      const headless = copyArchive(archive, join(auditDir, 'headless'));
      rmSync(join(headless, 'sandbox', first ?? ''), { recursive: true });
      expect(problems(verify([headless, ...key]).lines)).toEqual([
        `PROBLEM sandbox/${second}: the segments before it are missing: it starts at seq 4 and is not the archive's first`,
      ]);
    },
  );

  auditTest(
    'refuses every segment signed by another key than the one given',
    async ({ oneReplica, auditReplica, auditDir, signer }) => {
      const a = await oneReplica('audit-verify-key');
      const names = await threeSegments(auditReplica(a));
      const other = newSigner().publicKey;
      const run = verify([join(auditDir, 'archive'), '--key', other]);
      expect(run.status).toBe(1);
      expect(problems(run.lines)).toHaveLength(3);
      expect(problems(run.lines)[0]).toBe(
        `PROBLEM sandbox/${names[0]}: signed by key ${signer.publicKey.slice(0, 12)}…, not by the key given (${other.slice(0, 12)}…)`,
      );
    },
  );

  auditTest(
    'checks one segment alone, and says what it cannot check then',
    async ({ oneReplica, auditReplica, auditDir, signer }) => {
      const a = await oneReplica('audit-verify-one');
      const [, second] = await threeSegments(auditReplica(a));
      const run = verify([
        join(auditDir, 'archive', 'sandbox', second ?? '', MANIFEST_FILE),
        '--key',
        signer.publicKey,
      ]);
      expect(run.status).toBe(0);
      expect(run.lines).toContain(
        'One segment checked alone: whether segments before or after it are missing is not checked.',
      );
      expect(verify([join(auditDir, 'nowhere'), '--key', signer.publicKey]).status).toBe(2);
    },
  );

  auditTest(
    'verifies entries that name their actor as of then, after and in the same segment as older ones that do not',
    async ({ oneReplica, auditReplica, auditDir, signer }) => {
      const a = await oneReplica('audit-verify-actors');
      const replica = auditReplica(a);
      for (let n = 0; n < 2; n++) await replica.log.append('sandbox', auditDraft(n));
      replica.log.describeActorsWith({
        directory: async () => ({ name: 'Ada Obi', email: 'ada@example.com' }),
      });
      for (let n = 2; n < 4; n++) await replica.log.append('sandbox', auditDraft(n));
      expect(await replica.keeper.archiveNow('schedule')).toMatchObject({ written: true, count: 4 });
      const archive = join(auditDir, 'archive');
      const [segment] = readdirSync(join(archive, 'sandbox')).filter((name) => !name.startsWith('.'));
      const entries = join(archive, 'sandbox', segment ?? '', ENTRIES_FILE);
      const named = readFileSync(entries, 'utf8')
        .trim()
        .split('\n')
        .map((line) => (JSON.parse(line) as AuditDraft).actorName);
      expect(named).toEqual([undefined, undefined, 'Ada Obi', 'Ada Obi']);
      expect(problems(verify([archive, '--key', signer.publicKey]).lines)).toEqual([]);

      // The name is under the hash: changed in the archive, the entry no longer verifies.
      const renamed = copyArchive(archive, join(auditDir, 'renamed'));
      edit(join(renamed, 'sandbox', segment ?? '', ENTRIES_FILE), (text) =>
        text.replace('"actorName":"Ada Obi"', '"actorName":"Someone Else"'),
      );
      expect(problems(verify([renamed, '--key', signer.publicKey]).lines)).toContain(
        `PROBLEM sandbox/${segment}: line 3 (seq 2): its content no longer matches its hash: edited`,
      );
    },
  );

  auditTest(
    'recomputes each hash exactly as the chain does, whatever the entries hold',
    async ({ oneReplica, auditReplica, auditDir, signer }) => {
      const a = await oneReplica('audit-verify-hashes');
      const replica = auditReplica(a);
      // Entries with every kind of text and nesting the chain's canonical JSON has to get right.
      const text = fc.string({ unit: 'grapheme', maxLength: 12 });
      const drafts = fc.sample(
        fc.record({
          actor: text,
          note: text,
          amount: fc.oneof(fc.constant('0.01'), text),
          figures: fc.record({
            payload: fc.dictionary(text, fc.oneof(text, fc.integer(), fc.boolean(), fc.constant(null)), {
              maxKeys: 4,
            }),
            display: fc.dictionary(text, text, { maxKeys: 3 }),
            requiredApprovals: fc.integer({ min: 1, max: 3 }),
            approvals: fc.array(text, { maxLength: 2 }),
          }),
        }),
        { numRuns: 150, seed: 23 },
      );
      for (const [n, extra] of drafts.entries()) {
        await replica.log.append('sandbox', { ...auditDraft(n), ...extra } as AuditDraft);
      }
      expect(await replica.keeper.archiveNow('schedule')).toMatchObject({ written: true, count: 150 });
      expect(script([join(auditDir, 'archive'), '--key', signer.publicKey]).status).toBe(0);
    },
  );
});

const has = (tool: string) => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0;
const DOC = fileURLToPath(new URL('../../docs/audit-verify.md', import.meta.url));

/** docs/audit-verify.md's OpenSSL commands, run as written, with the key and segment filled in. */
function documentedOpenssl(key: string, segment: string): string {
  const doc = readFileSync(DOC, 'utf8');
  const section = doc.slice(doc.indexOf('## Checking one segment with OpenSSL'));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  const commands = block.replace(/^KEY=.*$/m, `KEY=${key}`).replace(/^SEGMENT=.*$/m, `SEGMENT='${segment}'`);
  const run = spawnSync('bash', ['-c', commands], { encoding: 'utf8' });
  return `${run.stdout}${run.stderr}`;
}

describe.skipIf(!['openssl', 'jq', 'xxd', 'base64'].every(has))('the OpenSSL check in the docs', () => {
  auditTest(
    'verifies a segment the bot signed, and refuses one whose manifest was changed',
    async ({ oneReplica, auditReplica, auditDir, signer }) => {
      const a = await oneReplica('audit-verify-openssl');
      const [first] = await threeSegments(auditReplica(a));
      const segment = join(auditDir, 'archive', 'sandbox', first ?? '');
      const good = documentedOpenssl(signer.publicKey, segment).split('\n');
      expect(good[0]).toBe('Signature Verified Successfully');
      expect(good[1]).toMatch(/^[0-9a-f]{64}$/);
      expect(good[2]).toBe(good[1]);

      const changed = copyArchive(join(auditDir, 'archive'), join(auditDir, 'changed'));
      edit(join(changed, 'sandbox', first ?? '', MANIFEST_FILE), (text) =>
        text.replace('"reason": "schedule"', '"reason": "schedulE"'),
      );
      expect(documentedOpenssl(signer.publicKey, join(changed, 'sandbox', first ?? ''))).toContain(
        'Signature Verification Failure',
      );
      expect(documentedOpenssl(newSigner().publicKey, segment)).toContain('Signature Verification Failure');
    },
  );
});
