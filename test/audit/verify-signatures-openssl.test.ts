// The OpenSSL walk-through in docs/audit-verify.md, run here as written on an archive the real engine
// wrote (signed-archives.ts), for a P-256 and for an Ed25519 passkey: it checks one signed approval,
// and refuses it once its signature is changed.
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect } from 'vitest';
import { copyArchive } from '../support/approver-archive.js';
import { flipByte, rewriteSegment } from '../support/audit-archive.js';
import { APPROVER_A } from '../support/engine.js';
import { onRequest, signedArchive, test, withSignatures } from './signed-archives.js';

const SCRIPT = fileURLToPath(new URL('../../scripts/audit-verify.mjs', import.meta.url));
const DOC = fileURLToPath(new URL('../../docs/audit-verify.md', import.meta.url));
const place = { rpId: 'desk.example.com', origin: 'https://desk.example.com' };

const has = (tool: string) => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0;
const TOOLS = ['openssl', 'jq', 'xxd', 'base64'];
const toolsHere = TOOLS.every(has);
if (!toolsHere && process.env.CI === 'true') {
  throw new Error(
    `CI=true but ${TOOLS.filter((t) => !has(t)).join(', ')} missing: the OpenSSL walk-through in docs/audit-verify.md cannot be run`,
  );
}
if (!toolsHere) console.warn(`skipping the passkey OpenSSL walk-through: needs ${TOOLS.join(', ')}`);

/** docs/audit-verify.md's walk-through for one approval, run as written with its four names filled in. */
function walkThrough(names: { archive: string; request: string; approver: string }): Promise<string[]> {
  const doc = readFileSync(DOC, 'utf8');
  const section = doc.slice(doc.indexOf('### Checking one approval by hand with OpenSSL'));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  const commands = block
    .replace(/^VERIFIER=.*$/m, `VERIFIER='${SCRIPT}'`)
    .replace(/^ARCHIVE=.*$/m, `ARCHIVE='${names.archive}'`)
    .replace(/^REQUEST=.*$/m, `REQUEST='${names.request}'`)
    .replace(/^APPROVER=.*$/m, `APPROVER='${names.approver}'`);
  // stdin not a socket (Node's pipes are), or bash reads ~/.bashrc as if started by a remote shell.
  // Not awaited one by one: a test runs its three walk-throughs (some twenty programs each) at once.
  const run = spawn('bash', ['-c', commands], {
    stdio: ['ignore', 'pipe', 'pipe'],
    // The script's own `mktemp -d` goes in the archive's folder, removed with the test's.
    env: {
      PATH: `${join(process.execPath, '..')}:${process.env.PATH ?? ''}`,
      TMPDIR: dirname(names.archive),
    },
  });
  const said = { stdout: '', stderr: '' };
  run.stdout.setEncoding('utf8').on('data', (chunk: string) => (said.stdout += chunk));
  run.stderr.setEncoding('utf8').on('data', (chunk: string) => (said.stderr += chunk));
  return new Promise((resolve, reject) => {
    run.on('error', reject);
    run.on('close', () => resolve(`${said.stdout}${said.stderr}`.trimEnd().split('\n')));
  });
}

/** What OpenSSL says of a good and a bad signature: dgst for ES256, pkeyutl for Ed25519. */
const SAYS = {
  'P-256': { good: 'Verified OK', bad: 'Verification failure' },
  Ed25519: { good: 'Signature Verified Successfully', bad: 'Signature Verification Failure' },
} as const;

describe.skipIf(!toolsHere)('the passkey OpenSSL walk-through in the docs', () => {
  test.for(['P-256', 'Ed25519'] as const)(
    'checks one signed approval, and refuses it once its signature is changed (%s passkey)',
    async (curve, { fx, auditDir, signer, networkId }) => {
      const says = SAYS[curve];
      const { folder, withdrawal } = await signedArchive(fx.engine, auditDir, networkId, curve);
      const names = { archive: folder, request: withdrawal, approver: APPROVER_A };
      // Each change on a copy of its own, so that the three walk-throughs run at once.
      const copy = (name: string) => copyArchive(folder, join(auditDir, name, 'archive', 'sandbox'));
      const [signatureChanged, figuresChanged] = [copy('signature-changed'), copy('figures-changed')];
      rewriteSegment(
        signatureChanged,
        signer,
        onRequest(withdrawal, (e) => withSignatures(e, (s) => ({ signature: flipByte(s.signature, 5) }))),
      );
      rewriteSegment(
        figuresChanged,
        signer,
        onRequest(withdrawal, (entry) => {
          if (!entry.figures) return entry;
          return { ...entry, figures: { ...entry.figures, purpose: 'Something else' } };
        }),
      );
      const [asSigned, refused, changed] = await Promise.all([
        walkThrough(names),
        walkThrough({ ...names, archive: signatureChanged }),
        walkThrough({ ...names, archive: figuresChanged }),
      ]);
      const [verified, computed, carried, where, policy, rpIdHash, hostHash, ...rest] = asSigned;
      expect(verified).toBe(says.good);
      expect(computed).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(carried).toBe(computed);
      expect(where).toBe(`webauthn.get ${place.origin}`);
      expect(policy).toBe(`all at ${place.origin}`);
      expect(rpIdHash).toMatch(/^[0-9a-f]{64}$/);
      expect(hostHash).toBe(rpIdHash);
      expect(rest).toEqual([]);
      expect(refused[0]).toBe(says.bad);
      expect(changed[0]).toBe(says.good);
      expect(changed[1]).not.toBe(changed[2]);
    },
  );
});
