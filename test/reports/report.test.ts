// A treasury report over the sandbox's seeded week, with approvals filed, approved, rejected and
// expired through the real engine, all on fixed clocks: the figures are golden.
import { describe, expect } from 'vitest';
import { Money } from '../../src/format/money.js';
import { buildReport } from '../../src/reports/build.js';
import { approveAsSeen, rejectAsSeen } from '../support/approve-as-seen.js';
import {
  APPROVER_A,
  APPROVER_B,
  DEST,
  type EngineFixture,
  type EngineFixtureOptions,
  engineTest,
  REQUESTER,
  twoNetworks,
  withdrawalDraft,
} from '../support/engine.js';
import { fileDraft } from '../support/filing.js';
import { lastDays, partsFor } from './support.js';

// The sandbox's clock stands still; the bot's runs a minute ahead, so what the engine sends is in the period.
const SANDBOX_NOW = Date.parse('2026-11-20T10:30:00Z');
const BOT_NOW = new Date(SANDBOX_NOW + 60_000);
const HOUR = 3_600_000;

// This file's own fixtures: an override at a file's top level would outlive the file in its worker.
const test = engineTest.extend('sandboxOptions', { now: () => SANDBOX_NOW });

/** The engine on a clock set before each step (`when`), on the test's sandbox and its fixed clock. */
async function start(startEngine: (options: EngineFixtureOptions) => Promise<EngineFixture>) {
  let at = SANDBOX_NOW;
  const fx = await startEngine({ ttlMs: 6 * HOUR, engine: { now: () => new Date(at) } });
  const when = (hoursAgo: number) => {
    at = SANDBOX_NOW - hoursAgo * HOUR;
  };
  return { fx, when };
}

describe('a week of the sandbox', () => {
  test('adds up the seeded week and the approvals given in it', async ({ sandbox, startEngine }) => {
    const { fx, when } = await start(startEngine);
    const engine = fx.engine;
    const [origin, destination] = await twoNetworks(fx.client);
    when(50);
    const w1 = await fileDraft(engine, withdrawalDraft(origin, '1500.00'));
    when(49);
    await approveAsSeen(engine, w1.id, APPROVER_A);
    await engine.idle();
    when(30);
    const w2 = await fileDraft(engine, withdrawalDraft(origin, '1000000.00'));
    when(29.5);
    await approveAsSeen(engine, w2.id, APPROVER_A);
    when(26);
    await approveAsSeen(engine, w2.id, APPROVER_B);
    await engine.idle();
    when(20);
    const w3 = await fileDraft(engine, withdrawalDraft(origin, '2500.00'));
    when(19);
    await rejectAsSeen(engine, w3.id, APPROVER_B, 'Wrong invoice');
    when(8);
    await fileDraft(engine, withdrawalDraft(origin, '3000.00'));
    when(5);
    const w5 = await fileDraft(engine, withdrawalDraft(origin, '4000.00'));
    // The requester's total in the window now asks for two approvals (limits over time).
    when(4.75);
    await approveAsSeen(engine, w5.id, APPROVER_A);
    when(4.5);
    await approveAsSeen(engine, w5.id, APPROVER_B);
    await engine.idle();
    when(3);
    const quote = await fx.client.bridgeQuote({
      amount: Money.parse('100000'),
      originNetworkId: origin,
      destinationNetworkId: destination,
      destinationAddress: DEST,
    });
    const bridge = await fileDraft(engine, {
      kind: 'bridge',
      amount: '100000.00',
      payload: { originNetworkId: origin, destinationNetworkId: destination, destinationAddress: DEST },
      display: { quote },
      purpose: 'Liquidity for the other chain',
      requester: REQUESTER,
    });
    when(2);
    await approveAsSeen(engine, bridge.id, APPROVER_B);
    when(1.5);
    await approveAsSeen(engine, bridge.id, APPROVER_A);
    await engine.idle();
    when(1);
    await engine.tick();
    await engine.idle();

    const report = await buildReport(
      lastDays(7, BOT_NOW),
      partsFor(fx.client, fx.store, () => BOT_NOW),
    );
    const { treasury, approvals } = report;
    expect(sandbox.balance()).toBe('144500.00');
    expect(treasury).toMatchObject({
      environment: 'sandbox',
      opening: '4655649.00',
      closing: '144500.00',
      inflows: {
        deposit: '3256015.50',
        withdrawal: '0.00',
        redemption: '0.00',
        bridge: '0.00',
        other: '0.00',
      },
      outflows: {
        deposit: '0.00',
        withdrawal: '3957807.00',
        redemption: '1858302.00',
        bridge: '1951055.50',
        other: '0.00',
      },
      // The bridge's quoted fees (the destination's network fee and 0.5 % of ₦100,000), from the bot's records.
      fees: '505.00',
    });
    expect(treasury.completeFrom).toBeUndefined();
    // The figures hold together: opening + in − out = closing, in kobo.
    const kobo = (figures: Record<string, string>) =>
      Object.values(figures).reduce((total, text) => total + Money.parseDecimal(text).kobo, 0n);
    expect(Money.parseDecimal(treasury.opening).kobo + kobo(treasury.inflows) - kobo(treasury.outflows)).toBe(
      Money.parseDecimal(treasury.closing).kobo,
    );
    expect(treasury.largest.map((m) => [m.kind, m.amount])).toEqual([
      ['redemption', '922327.00'],
      ['redemption', '913064.50'],
      ['deposit', '853203.50'],
      ['bridge', '716660.50'],
      ['deposit', '699200.50'],
    ]);
    expect(treasury.failures.map((m) => [m.kind, m.amount, m.at])).toEqual([
      ['withdrawal', '316776.00', '2026-11-15T02:21:26.435Z'],
      ['redemption', '483959.50', '2026-11-18T00:47:27.912Z'],
    ]);
    expect(treasury.days).toEqual([
      { day: '2026-11-14', closing: '3573018.00', inflow: '44094.00', outflow: '1126725.00' },
      { day: '2026-11-15', closing: '3980451.00', inflow: '1012783.00', outflow: '605350.00' },
      { day: '2026-11-16', closing: '2825626.00', inflow: '407359.00', outflow: '1562184.00' },
      { day: '2026-11-17', closing: '2849391.00', inflow: '433246.50', outflow: '409481.50' },
      { day: '2026-11-18', closing: '2047474.50', inflow: '25838.00', outflow: '827754.50' },
      { day: '2026-11-19', closing: '396796.50', inflow: '479491.50', outflow: '2130169.50' },
      { day: '2026-11-20', closing: '144500.00', inflow: '853203.50', outflow: '1105500.00' },
    ]);
    // What the engine sent is in the week, pending: it left the balance when the service took it.
    const sent = treasury.movements.filter((m) => m.status === 'pending');
    expect(sent.map((m) => [m.kind, m.amount])).toEqual(
      expect.arrayContaining([
        ['withdrawal', '1500.00'],
        ['withdrawal', '1000000.00'],
        ['withdrawal', '4000.00'],
        ['bridge', '100000.00'],
      ]),
    );
    expect(approvals).toEqual({
      filed: 6,
      approved: 4,
      rejected: 1,
      expired: 1,
      medianMs: 1.25 * HOUR,
      slowestMs: 4 * HOUR,
      perApprover: [
        { user: APPROVER_A, count: 4 },
        { user: APPROVER_B, count: 3 },
      ],
    });
  });
});
