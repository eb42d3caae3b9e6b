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
  type Assertion,
  failsWith,
  filedBy,
  onRequest,
  problems,
  registrationOf,
  test,
  unsigned,
  verifiesCleanly,
  withSignatures,
} from './signed-archives.js';

/** How the verifier names the signed archive's withdrawal in a problem. */
const sentAbout = ({ withdrawal, sentSeq }: { withdrawal: string; sentSeq: number }) =>
  `request ${withdrawal} (withdraw, sent at seq ${sentSeq})`;

/** The problem of passkey registration `id` approved by a click of `user`'s when a signature was needed. */
const clickedRegistration = (id: string, user: string) =>
  expect.stringMatching(
    new RegExp(
      `request ${id} \\(passkey, sent at seq \\d+\\): ${user}'s approval has no passkey signature, though two approvers had held passkeys or ${user} held one then$`,
    ),
  );

/**
 * A store edit: A counted once more among request `id`'s approvals, with the assertion `again` makes
 * from the entry and A's first (none: the entry is left as it is).
 */
const countedAgainByA = (id: string, again: (first: Assertion, entry: AuditEntry) => Assertion | undefined) =>
  onRequest(id, (entry) => {
    const figures = entry.figures;
    const [signature] = figures?.signatures ?? [];
    const second = signature && again(signature, entry);
    if (!figures || !signature || !second) return entry;
    const approvals = [...figures.approvals, APPROVER_A];
    return { ...entry, figures: { ...figures, approvals, signatures: [signature, second] } };
  });

/**
 * A store edit: the passkey `registration` registered revoked by its owner `user` just before request
 * `id` was filed, at the time of its filing.
 */
function revokedBefore(
  entries: AuditEntry[],
  id: string,
  registration: AuditEntry | undefined,
  user: string,
): AuditEntry[] {
  const filed = entries.findIndex((e) => e.requestId === id);
  const revoked: AuditEntry = {
    ...(registration as AuditEntry),
    at: (entries[filed] as AuditEntry).at,
    action: 'passkey-revoked',
    actor: user,
    note: 'revoked by its owner',
  };
  return [...entries.slice(0, filed), revoked, ...entries.slice(filed)];
}

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
    const flipSignature = onRequest(withdrawal, (e) =>
      withSignatures(e, (s) => ({ signature: flipByte(s.signature, 5) })),
    );
    rewriteSegment(folder, signer, flipSignature);
    const line = new RegExp(
      `^PROBLEM sandbox/\\S+: request ${withdrawal} \\(withdraw, sent at seq \\d+\\): ${why}$`,
    );
    failsWith(folder, signer.publicKey, [expect.stringMatching(line)], { standalone: true });
    // Back to the signature as made; now the authenticator data's counter byte.
    rewriteSegment(folder, signer, flipSignature);
    expect(verify(folder, signer.publicKey).status).toBe(0);
    rewriteSegment(
      folder,
      signer,
      onRequest(withdrawal, (e) =>
        withSignatures(e, (s) => ({ authenticatorData: flipByte(s.authenticatorData) })),
      ),
    );
    const result = verify(folder, signer.publicKey);
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
    const { folder, withdrawal, signer } = signed;
    rewriteSegment(folder, signer, onRequest(withdrawal, unsigned));
    failsWith(folder, signer.publicKey, [
      expect.stringContaining(
        `${sentAbout(signed)}: ${APPROVER_A}'s approval has no passkey signature, though the signing rule then needed one`,
      ),
    ]);
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
      return revokedBefore(entries, withdrawal, registration, APPROVER_A);
    });
    failsWith(folder, signer.publicKey, [
      expect.stringMatching(
        new RegExp(
          `request ${withdrawal} \\(withdraw, sent at seq \\d+\\): ${APPROVER_A}'s signature is by passkey \\S+, revoked at \\S+, before the request was sent$`,
        ),
      ),
    ]);
  });

  test('fails a clicked registration once two approvers had held passkeys, revoked since or not (a store edit)', async ({
    signed,
  }) => {
    const { folder, signer } = signed;
    let id = '';
    rewriteSegment(folder, signer, (entries) => {
      id = registrationOf(entries, REQUESTER)?.requestId ?? '';
      // B's passkey revoked before the requester's registration: only A holds one, but two had.
      return revokedBefore(
        onRequest(id, unsigned)(entries),
        id,
        registrationOf(entries, APPROVER_B),
        APPROVER_B,
      );
    });
    failsWith(folder, signer.publicKey, [clickedRegistration(id, APPROVER_B)]);
  });

  test('fails a registration clicked by an approver who held a passkey, while only one did (a store edit)', async ({
    signed,
  }) => {
    const { folder, signer } = signed;
    let id = '';
    rewriteSegment(folder, signer, (entries) => {
      id = registrationOf(entries, APPROVER_B)?.requestId ?? '';
      return onRequest(id, unsigned)(entries);
    });
    failsWith(folder, signer.publicKey, [clickedRegistration(id, APPROVER_A)]);
  });

  test('fails when the figures sent differ from those signed', async ({ signed }) => {
    const { folder, withdrawal, signer } = signed;
    rewriteSegment(
      folder,
      signer,
      onRequest(withdrawal, (entry) => {
        if (!entry.figures) return entry;
        const payload = { ...entry.figures.payload, amount: '5001' };
        return { ...entry, amount: '5001.00', figures: { ...entry.figures, payload } };
      }),
    );
    failsWith(folder, signer.publicKey, [
      expect.stringContaining(
        `${sentAbout(signed)}: ${APPROVER_A}'s signature is over other figures than the chain recorded for the request (its challenge differs)`,
      ),
    ]);
  });

  test('fails an approval duplicated with its signature (a store edit)', async ({ signed }) => {
    const { folder, withdrawal, signer } = signed;
    rewriteSegment(
      folder,
      signer,
      countedAgainByA(withdrawal, (first) => first),
    );
    const about = sentAbout(signed);
    failsWith(folder, signer.publicKey, [
      expect.stringContaining(`${about}: ${APPROVER_A} is counted more than once among its approvals`),
      expect.stringContaining(
        `${about}: ${APPROVER_A}'s signature repeats the nonce of ${APPROVER_A}'s (one assertion counted twice)`,
      ),
    ]);
  });

  test('fails two approvals signed with one passkey, each with its own nonce (a store edit)', async ({
    signed,
  }) => {
    const { folder, withdrawal, deviceA, signer } = signed;
    // A second assertion by A's passkey over the same figures under another nonce: it verifies on its own.
    const underAnotherNonce = (first: Assertion, entry: AuditEntry) => {
      const bytes = entrySignedBytes(entry);
      if (!bytes) return undefined;
      const nonce = `${first.nonce}-again`;
      return { user: APPROVER_A, ...deviceA.assert(signedChallenge(bytes, nonce), nonce) };
    };
    rewriteSegment(folder, signer, countedAgainByA(withdrawal, underAnotherNonce));
    const about = sentAbout(signed);
    failsWith(folder, signer.publicKey, [
      expect.stringContaining(`${about}: ${APPROVER_A} is counted more than once among its approvals`),
      expect.stringMatching(
        new RegExp(
          `${about.replace(/[()]/g, '\\$&')}: ${APPROVER_A}'s signature is by passkey \\S+, as ${APPROVER_A}'s is \\(one passkey counted twice\\)$`,
        ),
      ),
    ]);
  });

  test('fails an approval by the request’s requester (a store edit)', async ({ signed }) => {
    const { folder, withdrawal, signer } = signed;
    // As if A had filed the withdrawal A then approved.
    rewriteSegment(folder, signer, filedBy(withdrawal, APPROVER_A));
    failsWith(folder, signer.publicKey, [
      expect.stringContaining(
        `${sentAbout(signed)}: ${APPROVER_A} filed it and is counted among its approvals`,
      ),
    ]);
  });

  test('fails a request sent with fewer approvers than it needed when filed (a store edit)', async ({
    signed,
  }) => {
    const { folder, withdrawal, signer } = signed;
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
    failsWith(folder, signer.publicKey, [
      expect.stringContaining(
        `${sentAbout(signed)}: sent with 1 distinct approver, though it needed 2 when filed (1 on the entry that sent it)`,
      ),
    ]);
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
