// A report's first read of a month spends the shared request budget page by page, at report priority:
// the slots kept for money stay free, so a withdrawal approved meanwhile goes out at once, and one
// background slot stays free for other background reads.
// The real client, its store-backed limiter and the sandbox enforcing the service's limit, over HTTP.
import { expect } from 'vitest';
import { ApprovalPolicy, parseTiers } from '../../src/access/index.js';
import { ApprovalEngine } from '../../src/approvals/index.js';
import { ApprovalRepository } from '../../src/approvals/repository.js';
import { custodyGateway } from '../../src/cngn/custody-gateway.js';
import { buildReport } from '../../src/reports/build.js';
import { reportDeps } from '../../src/reports/deps.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { approveAsSeen } from '../support/approve-as-seen.js';
import { clientFor } from '../support/cngn-client.js';
import { APPROVER_A, REQUESTER, twoNetworks, withdrawalDraft } from '../support/engine.js';
import { fileDraft } from '../support/filing.js';
import { test } from '../support/fixtures.js';
import { lastDays } from './support.js';

test('sends a withdrawal approved during a month’s first read at once, ahead of the report', async ({
  defer,
}) => {
  // The service's limit per real minute: nothing here waits for a window to pass.
  const sandbox = await startSandbox({ rateLimit: { limit: 20, windowMs: 60_000, blockMs: 60_000 } });
  defer(() => sandbox.stop());
  // A call waiting for a slot sleeps here: it fails the test at once instead of waiting a minute.
  const waited: number[] = [];
  const { client, store } = await clientFor(sandbox, {
    environment: 'sandbox',
    rateLimit: { limit: 20, windowSeconds: 60 },
    limiter: {
      sleep: async (ms) => {
        waited.push(ms);
        throw new Error(`a call waited ${ms} ms for the request budget`);
      },
    },
  });
  defer(() => store.close());
  defer(() => client.close());
  const [networkId] = await twoNetworks(client); // one request; the networks are cached from here
  const engine = new ApprovalEngine({
    store,
    custody: custodyGateway(client),
    policy: new ApprovalPolicy({ approvers: [APPROVER_A, REQUESTER], tiers: parseTiers('0:1') }),
    ttlMs: 3_600_000,
  });
  defer(() => engine.stop());

  // Two transactions a page: the 36 of the month take 18 pages, more than background may ever use.
  let budgetSpent = () => {};
  const spent = new Promise<void>((resolve) => {
    budgetSpent = resolve;
  });
  let stopReport = (_error: Error) => {};
  const parts = reportDeps({
    client,
    store,
    repository: new ApprovalRepository(store, 'sandbox'),
    keyId: 'test-key',
    pageSize: 2,
    maxWaitMs: 3_600_000,
    sleep: () => {
      budgetSpent();
      return new Promise((_, reject) => {
        stopReport = reject;
      });
    },
  });
  const report = buildReport(lastDays(30, new Date()), parts).catch((error: unknown) => error);
  await spent;
  // Every slot but the four kept for money and people, and the one background slot a report leaves to
  // other background work, went to the report (one read the networks).
  expect(sandbox.count('GET', '/v1/api/transactions')).toBe(14);
  // That slot: a background read (an approval's balance check, the reconciler) goes out meanwhile.
  await client.getBalanceWithTime({ priority: 'background', fresh: true });
  expect(sandbox.count('GET', '/v1/api/balance')).toBe(1);

  const request = await fileDraft(engine, withdrawalDraft(networkId, '1500.00'));
  await approveAsSeen(engine, request.id, APPROVER_A);
  await engine.idle();
  expect((await engine.get(request.id))?.state).toBe('sent');
  expect(sandbox.count('POST', '/v1/api/withdraw')).toBe(1);
  expect(waited).toEqual([]);
  expect(sandbox.requests.filter((r) => r.status === 429)).toEqual([]);

  // The report is still waiting for budget; it has kept every page it read.
  expect(await parts.book.movements(new Date(0), new Date(Date.now() + 86_400_000))).toHaveLength(28);
  stopReport(new Error('stopped by the test'));
  expect(await report).toMatchObject({ message: 'stopped by the test' });
});
