import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { needsSignature } from '../../src/access/index.js';
import type { AuditEntry } from '../../src/approvals/types.js';
import { signedChallenge } from '../../src/audit/approval-bytes.js';
import { ENTRIES_FILE } from '../../src/audit/segments.js';
import { entrySignedBytes, policyNeeds, signingPolicyOf } from '../../src/audit/signature-checks.js';
import { loadConfig } from '../../src/config.js';
import { policyOf } from '../../src/wiring/policy-inputs.js';
import { verify } from '../support/approver-archive.js';
import { flipByte, rewriteSegment } from '../support/audit-archive.js';
import { SLACK_ENV } from '../support/config-env.js';
import { APPROVER_A, APPROVER_B, REQUESTER } from '../support/engine.js';
import {
  filedBy,
  onRequest,
  problems,
  test,
  unsigned,
  verifiesCleanly,
  withSignatures,
} from './signed-archives.js';

describe('the verifier’s check of passkey-signed approvals', () => {
  test('passes an archive of signed approvals made through the engine, the standalone script saying the same', async ({
    signed,
  }) => {
    const { folder, signer } = signed;
    const lines = verifiesCleanly(folder, signer.publicKey, { standalone: true });
    expect(lines).toContain('sandbox: 3 passkey signatures checked on 3 requests sent with signed approvals');
  });

  test('fails when one byte of the signature or of the authenticator data is changed, the standalone script saying the same', async ({
    signed,
  }) => {
    const { folder, withdrawal, signer } = signed;
    const why = `${APPROVER_A}'s signature does not verify with the public key its passkey was registered with`;
    rewriteSegment(
      folder,
      signer,
      onRequest(withdrawal, (e) => withSignatures(e, (s) => ({ signature: flipByte(s.signature, 5) }))),
    );
    let result = verify(folder, signer.publicKey, { standalone: true });
    expect(problems(result.lines)).toEqual([
      expect.stringMatching(
        new RegExp(`^PROBLEM sandbox/\\S+: request ${withdrawal} \\(withdraw, sent at seq \\d+\\): ${why}$`),
      ),
    ]);
    expect(result.status).toBe(1);
    // Back to the signature as made; now the authenticator data's counter byte.
    rewriteSegment(
      folder,
      signer,
      onRequest(withdrawal, (e) => withSignatures(e, (s) => ({ signature: flipByte(s.signature, 5) }))),
    );
    expect(verify(folder, signer.publicKey).status).toBe(0);
    rewriteSegment(
      folder,
      signer,
      onRequest(withdrawal, (e) =>
        withSignatures(e, (s) => ({ authenticatorData: flipByte(s.authenticatorData) })),
      ),
    );
    result = verify(folder, signer.publicKey);
    expect(problems(result.lines)).toEqual([
      expect.stringContaining(`request ${withdrawal} (withdraw, sent at seq`),
    ]);
    expect(problems(result.lines)[0]).toContain(why);
    expect(result.status).toBe(1);
  });

  test('fails a byte changed in the archive file itself, on the signature as well as the hashes', async ({
    signed,
  }) => {
    const { folder, withdrawal, signer } = signed;
    const [name] = readdirSync(folder).filter((n) => !n.startsWith('.'));
    const path = join(folder, name ?? '', ENTRIES_FILE);
    const lines = readFileSync(path, 'utf8').split('\n');
    const changed = lines.map((line) => {
      const entry = line ? (JSON.parse(line) as AuditEntry) : undefined;
      if (entry?.requestId !== withdrawal || entry.state !== 'sent') return line;
      const signature = entry.figures?.signatures?.[0]?.signature ?? '';
      return line.replace(signature, flipByte(signature, 5));
    });
    rmSync(path);
    writeFileSync(path, changed.join('\n'));
    const result = verify(folder, signer.publicKey);
    expect(problems(result.lines)).toContainEqual(expect.stringContaining(`request ${withdrawal} (withdraw`));
    expect(problems(result.lines)).toContainEqual(expect.stringContaining('no longer matches its hash'));
    expect(result.status).toBe(1);
  });

  test('fails when an approval the rule needed signed has none (a store edit)', async ({ signed }) => {
    const { folder, withdrawal, sentSeq, signer } = signed;
    rewriteSegment(
      folder,
      signer,
      onRequest(withdrawal, (entry) => {
        if (!entry.figures) return entry;
        const { signatures: _gone, round: _round, ...figures } = entry.figures;
        return { ...entry, figures };
      }),
    );
    const { status, lines } = verify(folder, signer.publicKey);
    expect(problems(lines)).toEqual([
      expect.stringContaining(
        `request ${withdrawal} (withdraw, sent at seq ${sentSeq}): ${APPROVER_A}'s approval has no passkey signature, though the signing rule then needed one`,
      ),
    ]);
    expect(status).toBe(1);
  });

  test('fails when the passkey was revoked before the approval', async ({ signed }) => {
    const { folder, withdrawal, deviceA, signer } = signed;
    rewriteSegment(folder, signer, (entries) => {
      const registration = entries.find(
        (e) =>
          e.kind === 'passkey' &&
          e.state === 'completed' &&
          e.figures?.payload.credentialId === deviceA.credentialId,
      );
      const filed = entries.findIndex((e) => e.requestId === withdrawal);
      const before = entries[filed] as AuditEntry;
      const revoked: AuditEntry = {
        ...(registration as AuditEntry),
        at: before.at,
        action: 'passkey-revoked',
        actor: APPROVER_A,
        note: 'revoked by its owner',
      };
      return [...entries.slice(0, filed), revoked, ...entries.slice(filed)];
    });
    const { status, lines } = verify(folder, signer.publicKey);
    expect(problems(lines)).toEqual([
      expect.stringMatching(
        new RegExp(
          `request ${withdrawal} \\(withdraw, sent at seq \\d+\\): ${APPROVER_A}'s signature is by passkey \\S+, revoked at \\S+, before the request was sent$`,
        ),
      ),
    ]);
    expect(status).toBe(1);
  });

  test('fails a clicked registration once two approvers had held passkeys, revoked since or not (a store edit)', async ({
    signed,
  }) => {
    const { folder, signer } = signed;
    let id = '';
    rewriteSegment(folder, signer, (entries) => {
      const registrationOf = (user: string) =>
        entries.find(
          (e) => e.kind === 'passkey' && e.state === 'completed' && e.figures?.payload.user === user,
        );
      id = registrationOf(REQUESTER)?.requestId ?? '';
      const filed = entries.findIndex((e) => e.requestId === id);
      // B's passkey revoked before the requester's registration: only A holds one, but two had.
      const revoked: AuditEntry = {
        ...(registrationOf(APPROVER_B) as AuditEntry),
        at: (entries[filed] as AuditEntry).at,
        action: 'passkey-revoked',
        actor: APPROVER_B,
        note: 'revoked by its owner',
      };
      const clicked = entries.map((e) => (e.requestId === id ? unsigned(e) : e));
      return [...clicked.slice(0, filed), revoked, ...clicked.slice(filed)];
    });
    const { status, lines } = verify(folder, signer.publicKey);
    expect(problems(lines)).toEqual([
      expect.stringMatching(
        new RegExp(
          `request ${id} \\(passkey, sent at seq \\d+\\): ${APPROVER_B}'s approval has no passkey signature, though two approvers had held passkeys or ${APPROVER_B} held one then$`,
        ),
      ),
    ]);
    expect(status).toBe(1);
  });

  test('fails a registration clicked by an approver who held a passkey, while only one did (a store edit)', async ({
    signed,
  }) => {
    const { folder, signer } = signed;
    let id = '';
    rewriteSegment(folder, signer, (entries) => {
      const registration = entries.find(
        (e) => e.kind === 'passkey' && e.state === 'completed' && e.figures?.payload.user === APPROVER_B,
      );
      id = registration?.requestId ?? '';
      return entries.map((e) => (e.requestId === id ? unsigned(e) : e));
    });
    const { status, lines } = verify(folder, signer.publicKey);
    expect(problems(lines)).toEqual([
      expect.stringMatching(
        new RegExp(
          `request ${id} \\(passkey, sent at seq \\d+\\): ${APPROVER_A}'s approval has no passkey signature, though two approvers had held passkeys or ${APPROVER_A} held one then$`,
        ),
      ),
    ]);
    expect(status).toBe(1);
  });

  test('fails when the figures sent differ from those signed', async ({ signed }) => {
    const { folder, withdrawal, sentSeq, signer } = signed;
    rewriteSegment(
      folder,
      signer,
      onRequest(withdrawal, (entry) => {
        if (!entry.figures) return entry;
        const payload = { ...entry.figures.payload, amount: '5001' };
        return { ...entry, amount: '5001.00', figures: { ...entry.figures, payload } };
      }),
    );
    const { status, lines } = verify(folder, signer.publicKey);
    expect(problems(lines)).toEqual([
      expect.stringContaining(
        `request ${withdrawal} (withdraw, sent at seq ${sentSeq}): ${APPROVER_A}'s signature is over other figures than the chain recorded for the request (its challenge differs)`,
      ),
    ]);
    expect(status).toBe(1);
  });

  test('fails an approval duplicated with its signature (a store edit)', async ({ signed }) => {
    const { folder, withdrawal, sentSeq, signer } = signed;
    rewriteSegment(
      folder,
      signer,
      onRequest(withdrawal, (entry) => {
        const figures = entry.figures;
        const [signature] = figures?.signatures ?? [];
        if (!figures || !signature) return entry;
        const approvals = [...figures.approvals, APPROVER_A];
        return { ...entry, figures: { ...figures, approvals, signatures: [signature, signature] } };
      }),
    );
    const { status, lines } = verify(folder, signer.publicKey);
    const about = `request ${withdrawal} (withdraw, sent at seq ${sentSeq})`;
    expect(problems(lines)).toEqual([
      expect.stringContaining(`${about}: ${APPROVER_A} is counted more than once among its approvals`),
      expect.stringContaining(
        `${about}: ${APPROVER_A}'s signature repeats the nonce of ${APPROVER_A}'s (one assertion counted twice)`,
      ),
    ]);
    expect(status).toBe(1);
  });

  test('fails two approvals signed with one passkey, each with its own nonce (a store edit)', async ({
    signed,
  }) => {
    const { folder, withdrawal, sentSeq, deviceA, signer } = signed;
    // A second assertion by A's passkey over the same figures under another nonce: it verifies on its own.
    rewriteSegment(
      folder,
      signer,
      onRequest(withdrawal, (entry) => {
        const figures = entry.figures;
        const [signature] = figures?.signatures ?? [];
        const bytes = entrySignedBytes(entry);
        if (!figures || !signature || !bytes) return entry;
        const nonce = `${signature.nonce}-again`;
        const again = { user: APPROVER_A, ...deviceA.assert(signedChallenge(bytes, nonce), nonce) };
        const approvals = [...figures.approvals, APPROVER_A];
        return { ...entry, figures: { ...figures, approvals, signatures: [signature, again] } };
      }),
    );
    const { status, lines } = verify(folder, signer.publicKey);
    const about = `request ${withdrawal} (withdraw, sent at seq ${sentSeq})`;
    expect(problems(lines)).toEqual([
      expect.stringContaining(`${about}: ${APPROVER_A} is counted more than once among its approvals`),
      expect.stringMatching(
        new RegExp(
          `${about.replace(/[()]/g, '\\$&')}: ${APPROVER_A}'s signature is by passkey \\S+, as ${APPROVER_A}'s is \\(one passkey counted twice\\)$`,
        ),
      ),
    ]);
    expect(status).toBe(1);
  });

  test('fails an approval by the request’s requester (a store edit)', async ({ signed }) => {
    const { folder, withdrawal, sentSeq, signer } = signed;
    // As if A had filed the withdrawal A then approved.
    rewriteSegment(folder, signer, filedBy(withdrawal, APPROVER_A));
    const { status, lines } = verify(folder, signer.publicKey);
    expect(problems(lines)).toEqual([
      expect.stringContaining(
        `request ${withdrawal} (withdraw, sent at seq ${sentSeq}): ${APPROVER_A} filed it and is counted among its approvals`,
      ),
    ]);
    expect(status).toBe(1);
  });

  test('fails a request sent with fewer approvers than it needed when filed (a store edit)', async ({
    signed,
  }) => {
    const { folder, withdrawal, sentSeq, signer } = signed;
    // Filed needing two; the count lowered to one in the store afterwards (the signed figures do not hold it).
    rewriteSegment(
      folder,
      signer,
      onRequest(withdrawal, (entry) =>
        entry.action === 'filed' && entry.figures
          ? { ...entry, figures: { ...entry.figures, requiredApprovals: 2 } }
          : entry,
      ),
    );
    const { status, lines } = verify(folder, signer.publicKey);
    expect(problems(lines)).toEqual([
      expect.stringContaining(
        `request ${withdrawal} (withdraw, sent at seq ${sentSeq}): sent with 1 distinct approver, though it needed 2 when filed (1 on the entry that sent it)`,
      ),
    ]);
    expect(status).toBe(1);
  });

  test.for([
    ['all', 'withdraw', '1.00'],
    ['all', 'whitelist', undefined],
    ['above:1000000', 'withdraw', '1000000.00'],
    ['above:1000000', 'withdraw', '1000000.01'],
    ['above:1000000', 'bridge', undefined],
    ['above:1000000', 'passkey', undefined],
    ['above:0', 'redeem', '0.01'],
    ['above:1,500,000.50', 'withdraw', '1500000.51'],
    ['above:1,500,000.50', 'redeem', '1500000.50'],
  ] as const)(
    'reads the rule CNGN_SIGNED_APPROVALS=%s puts on the record as the engine does (%s %s)',
    ([rule, kind, amount]) => {
      const config = loadConfig({
        ...SLACK_ENV,
        CNGN_SIGNED_APPROVALS: rule,
        CNGN_SIGNING_URL: 'https://sign.example.com:8443/desk/',
      });
      const recorded = policyOf(config, 'live').find((setting) => setting.name === 'signed approvals');
      const policy = signingPolicyOf(recorded?.value);
      if (!policy || !config.signing) throw new Error('signing not on the record');
      expect(policy).toMatchObject({ origin: config.signing.origin, rpId: config.signing.rpId });
      expect(policyNeeds(policy, kind, amount)).toBe(needsSignature(config.signing.rule, kind, amount));
    },
  );
});
