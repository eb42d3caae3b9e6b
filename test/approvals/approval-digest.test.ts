// The bytes an approver's passkey signs are the documented ones, and the challenge is what an auditor
// computes from them with openssl: SHA-256 of the bytes, a zero byte and the nonce.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { approvalBytes, approvalChallenge } from '../../src/approvals/approval-digest.js';
import type { ApprovalRequest } from '../../src/approvals/index.js';

const request = {
  id: 'AR-0123456789',
  kind: 'withdraw',
  environment: 'sandbox',
  keyId: 'k-5f2c',
  amount: '250000.00',
  payload: { amount: '250000', address: '0xAbC', networkId: 'net-base', shouldSaveAddress: false },
  display: {},
  purpose: 'Supplier payout\nINV-2231',
  requester: 'U_REQ',
  approvals: [],
  requiredApprovals: 1,
  state: 'pending',
  createdAt: '2026-11-28T10:00:00.000Z',
  expiresAt: '2026-11-29T10:00:00.000Z',
  round: 2,
  history: [],
} as unknown as ApprovalRequest;

describe('the bytes an approval signs', () => {
  it('are the documented lines, one value each, the amount in kobo', () => {
    expect(approvalBytes(request).toString('utf8')).toBe(
      [
        'cngn-desk approval v1',
        'id=AR-0123456789',
        'kind=withdraw',
        'amount_kobo=25000000',
        'destination={"address":"0xAbC","amount":"250000","networkId":"net-base","shouldSaveAddress":false}',
        'network=net-base',
        'purpose=Supplier payout INV-2231',
        'round=2',
        'environment=sandbox',
        'key=k-5f2c',
        '',
      ].join('\n'),
    );
  });

  it('change with the figures, the round and the environment', () => {
    const base = approvalBytes(request);
    const changed = [
      { ...request, amount: '250000.01' },
      { ...request, round: 3 },
      { ...request, environment: 'live' },
      { ...request, payload: { ...request.payload, address: '0xAbD' } },
    ] as ApprovalRequest[];
    for (const other of changed) expect(approvalBytes(other).equals(base)).toBe(false);
  });

  it('leave out a bridge callback token', () => {
    const bridge = {
      ...request,
      kind: 'bridge',
      payload: {
        originNetworkId: 'a',
        destinationNetworkId: 'b',
        destinationAddress: '0x1',
        callbackUrl: 'https://x/t0k3n',
      },
    } as unknown as ApprovalRequest;
    const text = approvalBytes(bridge).toString('utf8');
    expect(text).not.toContain('t0k3n');
    expect(text).toContain('network=b\n');
  });

  it('make the challenge SHA-256(bytes, 0x00, nonce), base64url', () => {
    const bytes = approvalBytes(request);
    const expected = createHash('sha256')
      .update(Buffer.concat([bytes, Buffer.from([0]), Buffer.from('n-1', 'utf8')]))
      .digest('base64url');
    expect(approvalChallenge(bytes, 'n-1')).toBe(expected);
    expect(approvalChallenge(bytes, 'n-2')).not.toBe(expected);
  });
});
