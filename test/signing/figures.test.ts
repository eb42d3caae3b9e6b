// The sign page's view of a request as stored: the destination in full with its look-alike and
// first-payment marks, every other field under the words Slack uses for it (people by name, times in
// Lagos time), and what the bot checked when the request was filed, one sentence each.
import { describe, expect, it } from 'vitest';
import type { ApprovalRequest, LookAlikeMark } from '../../src/approvals/types.js';
import { peopleIn, signRequestView } from '../../src/signing/figures.js';

const ADDRESS = '0xd9A1C3788D81257612E2581A6ea0aDa244853a91';
const KNOWN = '0xd9A1b0B1e1aE382DbDc898Ea68012FfcB2853a91';

const lookAlike: LookAlikeMark = { candidate: ADDRESS, known: KNOWN, differs: [[6, 36]], knownAs: 'paid' };

/** A withdrawal to `ADDRESS`, filed with a balance check, a first payment and a look-alike finding. */
const withdrawal = {
  id: 'AR-0123456789',
  kind: 'withdraw',
  environment: 'live',
  requester: 'UREQ',
  approvals: [],
  requiredApprovals: 3,
  createdAt: '2026-11-23T07:00:00.000Z',
  expiresAt: '2026-11-24T07:00:00.000Z',
  state: 'pending',
  round: 0,
  amount: '600000.00',
  purpose: 'Supplier payout INV-2231',
  payload: { amount: '600000.00', address: ADDRESS, networkId: 'base', shouldSaveAddress: false },
  display: { networkName: 'Base' },
  history: [],
  preflight: {
    at: '2026-11-23T07:00:00.000Z',
    balance: {
      balance: '2000000.00',
      asOf: '2026-11-23T06:59:00.000Z',
      committed: '400000.00',
      committedCount: 1,
      amount: '600000.00',
      after: '1000000.00',
      enough: true,
    },
    network: { name: 'Base', enabled: true },
    address: { shown: ADDRESS, checked: 'checksum' },
    whitelisted: false,
    firstPayment: true,
    lookAlike,
  },
} as unknown as ApprovalRequest;

/** A bridge from Base to BSC, filed with the networks' names and a first payment to its destination. */
const bridge = {
  ...withdrawal,
  kind: 'bridge',
  amount: '100000.00',
  payload: {
    originNetworkId: 'net-base',
    destinationNetworkId: 'net-bsc',
    destinationAddress: ADDRESS,
    senderAddress: KNOWN,
    callbackUrl: 'https://desk.example/bridge',
  },
  display: { originNetworkName: 'Base', destinationNetworkName: 'BSC' },
  preflight: { at: '2026-11-23T07:00:00.000Z', firstPayment: true },
} as unknown as ApprovalRequest;

/** Lifting a freeze whose reason came from a person (markup and all), filed by UREQ. */
const unfreeze = {
  ...withdrawal,
  kind: 'unfreeze',
  amount: undefined,
  purpose: undefined,
  payload: {
    frozenBy: 'U0BOLA',
    frozenAt: '2026-11-23T06:15:00.000Z',
    reason: 'look-alike <b>approved</b> & checking',
  },
  display: {},
  preflight: undefined,
} as unknown as ApprovalRequest;

/** Bola stands in for Chidi until Friday evening, for requests of at most ₦500,000. */
const delegation = {
  ...unfreeze,
  kind: 'delegation',
  payload: { delegator: 'U0CHIDI', delegate: 'U0BOLA', until: '2026-11-27T17:00:00.000Z', max: '500000.00' },
} as unknown as ApprovalRequest;

const NAMES = new Map([
  ['U0BOLA', 'Bola Ade'],
  ['U0CHIDI', 'Chidi Okeke'],
]);

/** The sign page's “Look twice” line naming `fields`. */
const advice = (fields: string) =>
  `Look twice: ${fields} hidden characters, shown as ⟨U+…⟩. Such characters can make text read as other text: check it with the bank or whoever gave it before this is approved.`;
describe('the sign page’s view of a request', () => {
  it('names every field of a bridge: its networks by name, its addresses, its first payment', () => {
    expect(signRequestView(bridge, 'bytes').figures).toEqual([
      { label: 'Amount', value: '₦100,000.00' },
      { label: 'From network', value: 'Base (net-base)' },
      { label: 'To network', value: 'BSC (net-bsc)' },
      { label: 'Destination address', value: ADDRESS, mark: 'First payment to this destination.' },
      { label: 'Sender address', value: KNOWN },
      { label: 'Purpose', value: 'Supplier payout INV-2231' },
    ]);
  });

  it('shows a quoted bridge’s receivable and fees, worded as Slack words them', () => {
    const quote = { amountReceivable: '99250.00', networkFee: '500.00', bridgeFee: '250.00' };
    const quoted = { ...bridge, display: { ...bridge.display, quote } } as ApprovalRequest;
    expect(signRequestView(quoted, 'bytes').figures.slice(4)).toEqual([
      { label: 'Sender address', value: KNOWN },
      { label: 'Receivable', value: '₦99,250.00' },
      { label: 'Fees', value: 'network ₦500.00 · bridge ₦250.00' },
      { label: 'Purpose', value: 'Supplier payout INV-2231' },
    ]);
  });

  it('names every field of an unfreeze: who froze by name, since when in Lagos time, and the reason as written', () => {
    expect(signRequestView(unfreeze, 'bytes', NAMES).figures).toEqual([
      { label: 'Frozen by', id: 'U0BOLA', value: 'Bola Ade' },
      { label: 'Frozen since', value: 'Mon 23 Nov 2026, 07:15 WAT' },
      { label: 'Reason for the freeze', value: 'look-alike <b>approved</b> & checking' },
    ]);
  });

  it('shows a person the page has no name for by their Slack id as an id, under the same label', () => {
    expect(signRequestView(unfreeze, 'bytes').figures[0]).toEqual({
      label: 'Frozen by',
      id: 'U0BOLA',
      value: '',
    });
    const atStart = {
      ...unfreeze,
      payload: { ...unfreeze.payload, frozenBy: 'start-up (CNGN_START_FROZEN)' },
    } as ApprovalRequest;
    expect(peopleIn(atStart)).toEqual([]);
    expect(signRequestView(atStart, 'bytes').figures[0]).toEqual({
      label: 'Frozen by',
      value: 'start-up (CNGN_START_FROZEN)',
    });
  });

  it('names the people of a delegation, its end in Lagos time and its cap in naira', () => {
    expect(peopleIn(delegation)).toEqual(['U0CHIDI', 'U0BOLA']);
    expect(signRequestView(delegation, 'bytes', NAMES).figures).toEqual([
      { label: 'Approver away', id: 'U0CHIDI', value: 'Chidi Okeke' },
      { label: 'Delegate (approves in their place)', id: 'U0BOLA', value: 'Bola Ade' },
      { label: 'Until', value: 'Fri 27 Nov 2026, 18:00 WAT' },
      { label: 'Cap per request', value: '₦500,000.00' },
    ]);
  });

  it('says a delegation without a cap has none, as Slack does', () => {
    const { max: _, ...uncapped } = (delegation as Extract<ApprovalRequest, { kind: 'delegation' }>).payload;
    const view = signRequestView({ ...delegation, payload: uncapped } as ApprovalRequest, 'bytes', NAMES);
    expect(view.figures.at(-1)).toEqual({ label: 'Cap per request', value: 'no cap' });
  });

  it('names a redemption’s and a settlement account’s bank and account on one line, in Slack’s words', () => {
    const redeem = {
      ...withdrawal,
      kind: 'redeem',
      payload: { amount: '600000.00', bankCode: '044', accountNumber: '0123456789' },
      display: { bankName: 'Access Bank', accountName: 'ADA OBI ENTERPRISES' },
      preflight: { at: '2026-11-23T07:00:00.000Z', firstPayment: true },
    } as unknown as ApprovalRequest;
    expect(signRequestView(redeem, 'bytes').figures).toEqual([
      { label: 'Amount', value: '₦600,000.00' },
      {
        label: 'To bank account',
        value: 'Access Bank (044) · 0123456789',
        mark: 'First payment to this destination.',
      },
      { label: 'Account name (resolved)', value: 'ADA OBI ENTERPRISES' },
      { label: 'Purpose', value: 'Supplier payout INV-2231' },
    ]);
    const unresolved = { ...redeem, display: { bankName: 'Access Bank' } } as ApprovalRequest;
    expect(signRequestView(unresolved, 'bytes').figures[2]).toEqual({
      label: 'Account name (resolved)',
      value: '—',
    });
    const settlement = {
      ...unfreeze,
      kind: 'settlement',
      payload: { bankName: 'GTBank', bankAccountName: 'CNGN DESK LTD', bankAccountNumber: '0987654321' },
      display: { accountName: 'CNGN DESK LTD' },
    } as unknown as ApprovalRequest;
    expect(signRequestView(settlement, 'bytes').figures).toEqual([
      { label: 'New settlement account', value: 'GTBank · 0987654321' },
      { label: 'Account name (resolved)', value: 'CNGN DESK LTD' },
    ]);
  });

  it('names a passkey’s owner and a whitelisted address in Slack’s words, without the key material', () => {
    const passkey = {
      ...unfreeze,
      kind: 'passkey',
      payload: {
        user: 'U0BOLA',
        name: 'Bola’s MacBook',
        credentialId: 'cred-1',
        publicKey: 'pk',
        counter: 0,
      },
    } as unknown as ApprovalRequest;
    expect(signRequestView(passkey, 'bytes', NAMES).figures).toEqual([
      { label: 'Passkey for', id: 'U0BOLA', value: 'Bola Ade' },
      { label: 'Passkey name', value: 'Bola’s MacBook' },
      { label: 'Credential id', value: 'cred-1' },
    ]);
    const whitelist = {
      ...unfreeze,
      kind: 'whitelist',
      payload: { networkId: 'base', address: ADDRESS },
      display: { networkName: 'Base' },
    } as unknown as ApprovalRequest;
    expect(signRequestView(whitelist, 'bytes').figures).toEqual([
      { label: 'Network', value: 'Base (base)' },
      { label: 'Address', value: ADDRESS },
    ]);
  });

  it('marks the destination as a look-alike of the known address, and a first payment', () => {
    const view = signRequestView(withdrawal, 'bytes');
    const to = view.figures.find((f) => f.label === 'To address');
    expect(to?.value).toBe(ADDRESS);
    expect(to?.mark).toBe(
      `Look-alike address: it resembles ${KNOWN}, paid before, but is not the same. Compare every character. First payment to this destination.`,
    );
    // The look-alike mark goes on the destination only.
    expect(view.figures.filter((f) => f.mark).map((f) => f.label)).toEqual(['To address']);
  });

  it('says what the bot checked at filing: balance, network, address, whitelist and marks', () => {
    expect(signRequestView(withdrawal, 'bytes').checks).toEqual([
      'Balance ₦2,000,000.00 as of Mon 23 Nov 2026, 07:59 WAT; ₦400,000.00 committed; after this ₦1,000,000.00.',
      'Network Base: enabled.',
      `Address ${ADDRESS}: checksum checked.`,
      'Not on the whitelist.',
      'First payment to this destination.',
      `Look-alike address: it resembles ${KNOWN}, paid before, but is not the same. Compare every character.`,
    ]);
  });

  it('marks hidden characters in names and words from outside, as Slack does', () => {
    const redeem = {
      ...withdrawal,
      kind: 'redeem',
      purpose: 'Payout\u200b to ADA OBI \u202eSESIRPRETNE',
      payload: { amount: '600000.00', bankCode: '044', accountNumber: '0123456789' },
      display: { bankName: 'Access\u200b Bank', accountName: 'ADA OBI \u202eSESIRPRETNE' },
      preflight: undefined,
    } as unknown as ApprovalRequest;
    const names = new Map([['UREQ', 'Ade\u200b Bello']]);
    const view = signRequestView(redeem, 'bytes', names);
    const shown = (label: string) => view.figures.find((f) => f.label === label)?.value;
    expect(shown('Account name (resolved)')).toBe('ADA OBI ⟨U+202E⟩SESIRPRETNE');
    expect(shown('Purpose')).toBe('Payout⟨U+200B⟩ to ADA OBI ⟨U+202E⟩SESIRPRETNE');
    expect(view.figures.find((f) => f.value.includes('Access'))?.value).toContain('Access⟨U+200B⟩ Bank');
    expect(view.requester).toEqual({ id: 'UREQ', name: 'Ade⟨U+200B⟩ Bello' });
    expect(view.checks).toEqual([
      'Look twice: “To bank account”, “Account name (resolved)”, “Purpose” and the requester contain hidden characters, shown as ⟨U+…⟩. Such characters can make text read as other text: check it with the bank or whoever gave it before this is approved.',
    ]);
  });

  it('says a balance that is not enough', () => {
    const preflight = withdrawal.preflight;
    if (!preflight?.balance) throw new Error('no balance in the fixture');
    const short = {
      ...withdrawal,
      preflight: { ...preflight, balance: { ...preflight.balance, after: '-100.00', enough: false } },
    } as ApprovalRequest;
    expect(signRequestView(short, 'bytes').checks[0]).toBe(
      'Balance ₦2,000,000.00 as of Mon 23 Nov 2026, 07:59 WAT; ₦400,000.00 committed; after this -₦100.00 (not enough).',
    );
  });
});

describe('what the sign page shows of text anyone can choose', () => {
  it('shows a person’s Slack id apart and before a name that reads like another person’s id', () => {
    const names = new Map([
      ['U0BOLA', 'Treasurer (U0REALBOSS)'],
      ['UREQ', 'Treasurer (U0REALBOSS)'],
    ]);
    const view = signRequestView(delegation, 'bytes', names);
    expect(view.figures[1]).toEqual({
      label: 'Delegate (approves in their place)',
      id: 'U0BOLA',
      value: 'Treasurer (U0REALBOSS)',
    });
    expect(view.figures[0]).toEqual({ label: 'Approver away', id: 'U0CHIDI', value: '' });
    expect(view.requester).toEqual({ id: 'UREQ', name: 'Treasurer (U0REALBOSS)' });
  });

  it('shows exactly what is signed with its hidden characters marked', () => {
    const view = signRequestView(withdrawal, '{"purpose":"Pay ADA \u202eSESIRPRETNE\u200b"}');
    expect(view.bytes).toBe('{"purpose":"Pay ADA ⟨U+202E⟩SESIRPRETNE⟨U+200B⟩"}');
  });

  it('says “Look twice” for hidden characters in any value shown: a person’s name, an id, a bank code, the requester', () => {
    const names = new Map([['U0BOLA', 'Bola\u202e Ade']]);
    expect(signRequestView(delegation, 'bytes', names).checks).toEqual([
      advice('“Delegate (approves in their place)” contains'),
    ]);
    const whitelist = {
      ...unfreeze,
      kind: 'whitelist',
      payload: { networkId: 'ba\u200bse', address: ADDRESS },
      display: { networkName: 'Base' },
    } as unknown as ApprovalRequest;
    expect(signRequestView(whitelist, 'bytes').checks).toEqual([advice('“Network” contains')]);
    const redeem = {
      ...withdrawal,
      kind: 'redeem',
      payload: { amount: '600000.00', bankCode: '04\u200b4', accountNumber: '0123456789' },
      display: { bankName: 'Access Bank', accountName: 'ADA OBI' },
      preflight: undefined,
    } as unknown as ApprovalRequest;
    const requester = new Map([['UREQ', 'Tunde\u2066 Eze']]);
    expect(signRequestView(redeem, 'bytes', requester).checks).toEqual([
      advice('“To bank account” and the requester contain'),
    ]);
  });

  it('says “Look twice” for hidden characters only in a check or only in the signed text, by its heading', () => {
    const preflight = withdrawal.preflight;
    if (!preflight) throw new Error('no checks in the fixture');
    const oddNetwork = {
      ...withdrawal,
      preflight: { ...preflight, network: { name: 'Ba\u202ese', enabled: true } },
    } as ApprovalRequest;
    const checks = signRequestView(oddNetwork, 'bytes').checks;
    expect.soft(checks[0]).toBe(advice('“Checks” contains'));
    expect(checks).toContain('Network Ba⟨U+202E⟩se: enabled.');
    const signed = signRequestView(unfreeze, '{"keyId":"k\u200b1","transports":["usb\u2066"]}');
    expect.soft(signed.checks).toEqual([advice('“Exactly what your passkey signs” contains')]);
  });
});

describe('the bank and its account on one line', () => {
  it('joins them whichever order the payload’s keys come in', () => {
    const redeem = {
      ...withdrawal,
      kind: 'redeem',
      payload: { accountNumber: '0123456789', amount: '600000.00', bankCode: '044' },
      display: { bankName: 'Access Bank', accountName: 'ADA OBI ENTERPRISES' },
      preflight: undefined,
    } as unknown as ApprovalRequest;
    expect(signRequestView(redeem, 'bytes').figures.slice(0, 2)).toEqual([
      { label: 'Amount', value: '₦600,000.00' },
      { label: 'To bank account', value: 'Access Bank (044) · 0123456789' },
    ]);
    const settlement = {
      ...unfreeze,
      kind: 'settlement',
      payload: { bankAccountNumber: '0987654321', bankAccountName: 'CNGN DESK LTD', bankName: 'GTBank' },
      display: {},
    } as unknown as ApprovalRequest;
    expect(signRequestView(settlement, 'bytes').figures.slice(0, 2)).toEqual([
      { label: 'Account name (resolved)', value: 'CNGN DESK LTD' },
      { label: 'New settlement account', value: 'GTBank · 0987654321' },
    ]);
  });
});
