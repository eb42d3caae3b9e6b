// A balance read under way when money moves: its figure is dated when it was asked (the service saw
// nothing later), so what is counted as committed against it includes the withdrawal; and a read asked
// after the withdrawal neither joins the one under way nor finds its figure kept in the cache.
import { expect } from 'vitest';
import type { CngnClient } from '../../src/cngn/client.js';
import { Money } from '../../src/format/money.js';
import type { Sandbox } from '../../src/sandbox/index.js';
import { heldBalanceTest as test } from '../support/held-balance.js';

const ADDRESS = '0x52908400098527886E0F7030069857D2E4169EE7';

async function withdraw100(client: CngnClient): Promise<void> {
  const bsc = await client.resolveNetwork('bsc');
  await client.withdraw({ amount: Money.parse('100'), address: ADDRESS, networkId: bsc?.id ?? '' });
}

const balanceOf = (sandbox: Sandbox) => Money.parse(sandbox.balance()).toString();

/** A balance entry's life no test outlasts, however busy the machine. */
const LONG_LIFE = { balance: 600_000 };

test('dates a balance read by when it was asked, not by when its late answer arrived', async ({
  sandbox,
  connect,
  held,
}) => {
  const { client } = await connect({ baseUrl: held.baseUrl });
  await client.resolveNetwork('bsc');
  const reading = client.getBalanceWithTime();
  await held.answered;
  const served = Date.now();
  const before = balanceOf(sandbox);
  await withdraw100(client);
  held.release();
  const figure = await reading;
  expect(figure.entries[0]?.balance).toBe(before);
  // Dated after the withdrawal's answer, the figure would be taken to hold it: counted neither in the
  // figure nor as committed.
  expect(figure.asOf.getTime()).toBeLessThanOrEqual(served);
});

test('keeps the time it was asked on a late balance answer another replica stores after a withdrawal', async ({
  sandbox,
  connect,
  held,
}) => {
  // The balance's life long enough that no machine is slow enough to see it end within the test.
  const { client: reader, store } = await connect({ baseUrl: held.baseUrl, cacheTtlMs: LONG_LIFE });
  const { client: payer } = await connect({ store, cacheTtlMs: LONG_LIFE });
  await payer.resolveNetwork('bsc');
  const reading = reader.getBalanceWithTime();
  await held.answered;
  const served = Date.now();
  const before = balanceOf(sandbox);
  await withdraw100(payer);
  held.release();
  await reading;
  // The other replica's forgetting does not reach a read under way here: the old figure is kept for
  // its seconds, dated before the withdrawal was answered, in the entry and in the one kept for "as of".
  const seen = await payer.getBalanceWithTime();
  expect(seen.entries[0]?.balance).toBe(before);
  expect(seen.asOf.getTime()).toBeLessThanOrEqual(served);
  const last = await payer.lastBalance();
  expect(last?.entries[0]?.balance).toBe(before);
  expect(last?.asOf.getTime()).toBeLessThanOrEqual(served);
});

test('a balance read asked after a withdrawal neither joins nor keeps the read under way before it', async ({
  sandbox,
  connect,
  held,
}) => {
  const { client } = await connect({ baseUrl: held.baseUrl, cacheTtlMs: LONG_LIFE });
  await client.resolveNetwork('bsc');
  const reading = client.getBalanceWithTime();
  await held.answered;
  const before = balanceOf(sandbox);
  await withdraw100(client);
  const askedAfter = client.getBalanceWithTime();
  held.release();
  // Its own caller still gets the figure it asked for, with the time it asked.
  expect((await reading).entries[0]?.balance).toBe(before);
  const now = balanceOf(sandbox);
  expect(now).not.toBe(before);
  expect((await askedAfter).entries[0]?.balance).toBe(now);
  const reads = sandbox.count('GET', '/v1/api/balance');
  expect((await client.getBalanceWithTime()).entries[0]?.balance).toBe(now);
  expect((await client.lastBalance())?.entries[0]?.balance).toBe(now);
  expect(sandbox.count('GET', '/v1/api/balance')).toBe(reads);
});
