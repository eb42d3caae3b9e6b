// The whole acceptance of the bot on every store replicas can run on (SQLite, Redis, PostgreSQL), across
// two replicas: two real Bolt apps on one shared store, each request filed through replica A and approved
// through replica B (a second approval through A), with signed Slack requests, the fake Slack and the
// real client against the sandbox. Each flow: one service call, its final state, its message updated,
// the settlement webhook in the alerts channel, and an audit chain that verifies.
import { describe, expect } from 'vitest';
import type { ApprovalRequest, RequestState } from '../../../src/approvals/types.js';
import { type Sandbox, startSandbox } from '../../../src/sandbox/index.js';
import {
  announced,
  approveAs,
  fileBridge,
  fileRedeem,
  fileSettlement,
  fileWhitelist,
  networkIds,
} from '../../support/approving.js';
import { FakeSlack } from '../../support/fake-slack.js';
import { ALERTS_CHANNEL } from '../../support/harness.js';
import { testPrefix } from '../../support/redis.js';
import { type Replicas, STORE_KINDS, type StoreKindName, storesTest } from '../../support/shared-stores.js';
import {
  APPROVER_A,
  APPROVER_B,
  type ApprovalApp,
  DEST,
  fileWithdrawal,
  startApprovalApp,
} from './support.js';

type Apps = { a: ApprovalApp; b: ApprovalApp };

/** Two replicas on one store: `pair`, their handles on it; `apps`, a bot on each; one sandbox and fake Slack. */
interface Replicated {
  sandbox: Sandbox;
  slack: FakeSlack;
  pair: Replicas;
  apps: Apps;
}

/** What the service was asked since `sandbox` had the requests it has now. */
function callsFrom(sandbox: Sandbox) {
  const before = sandbox.requests.length;
  const since = () => sandbox.requests.slice(before);
  return {
    count: (method: string, path: string) =>
      since().filter((r) => r.method === method && r.path.startsWith(path)).length,
    bodies: (path: string) =>
      since()
        .filter((r) => r.path === path)
        .map((r) => r.plainBody),
  };
}

/**
 * `replicated`: the test's store kind's Replicated, started by the file's first test on that kind and
 * kept for its others (each files requests of its own, so ids of its own), stopped after the file;
 * `calls`: what the service was asked during the test.
 */
const test = storesTest
  .extend('replicatedPerKind', { scope: 'file' }, async ({ storeKinds }, { onCleanup }) => {
    const started = new Map<StoreKindName, Promise<Replicated>>();
    const stops: Array<() => Promise<unknown>> = [];
    onCleanup(async () => {
      for (const stop of stops.reverse()) await stop();
    });
    const start = async (name: StoreKindName): Promise<Replicated> => {
      const kind = storeKinds.find((k) => k.name === name);
      if (!kind?.up) throw new Error(`no ${name} store here`);
      const sandbox = await startSandbox({ settleDelayMs: 3_600_000, rateLimit: false });
      stops.push(() => sandbox.stop());
      const slack = await FakeSlack.start();
      stops.push(() => slack.stop());
      const { close, ...pair } = await kind.replicas(testPrefix('acceptance-replicas'));
      stops.push(close);
      // Both mount the webhooks route; the sandbox delivers to the last one started: replica B.
      const common = { sandbox, slack, publicUrl: 'self', withWebhooks: true } as const;
      const a = await startApprovalApp({ ...common, store: pair.a });
      stops.push(() => a.stop());
      const b = await startApprovalApp({ ...common, store: pair.b });
      stops.push(() => b.stop());
      return { sandbox, slack, pair, apps: { a, b } };
    };
    return (name: StoreKindName): Promise<Replicated> => {
      const replicated = started.get(name) ?? start(name);
      started.set(name, replicated);
      return replicated;
    };
  })
  .extend('replicated', async ({ replicatedPerKind, storeKind }) => replicatedPerKind(storeKind))
  .extend('calls', async ({ replicated }) => callsFrom(replicated.sandbox));

for (const kind of STORE_KINDS.filter((k) => k.name !== 'memory')) {
  describe.skipIf(!kind.up)(`acceptance across two replicas on ${kind.name}`, () => {
    test.override('storeKind', kind.name);

    /**
     * The request reached `state` as replica A reads it from the store. The replica that moved it tells
     * its listeners once the move is saved, so the wait is on either replica's word, not a poll.
     */
    async function reaches({ a, b }: Apps, id: string, state: RequestState) {
      const told = new Promise<void>((resolve) => {
        const listener = async (request: ApprovalRequest) => {
          if (request.id === id && request.state === state) resolve();
        };
        a.engine.onChange(listener);
        b.engine.onChange(listener);
      });
      if ((await a.engine.get(id))?.state !== state) await told;
      expect((await a.engine.get(id))?.state, `${id} ${state}`).toBe(state);
    }

    /** The request's message was updated to say `marker`. */
    const updated = (slack: FakeSlack, id: string, marker: string) =>
      slack.waitFor('chat.update', (c) => {
        const text = JSON.stringify(c.body);
        return text.includes(id) && text.includes(marker);
      });

    /** The service's settlement webhook reached the alerts channel. */
    const alerted = (slack: FakeSlack, title: string) =>
      slack.waitFor(
        'chat.postMessage',
        (c) => c.body.channel === ALERTS_CHANNEL && String(c.body.text).includes(title),
      );

    /** The request's steps are in the audit log, every entry linked to the one before, and it verifies. */
    async function auditChained({ a, b }: { a: ApprovalApp; b: ApprovalApp }, id: string, actions: string[]) {
      await Promise.all([a.engine.idle(), b.engine.idle()]);
      const entries = await b.engine.auditRange(undefined, undefined);
      expect(entries.filter((e) => e.requestId === id).map((e) => e.action)).toEqual(
        expect.arrayContaining(actions),
      );
      entries.forEach((entry, i) => {
        expect(entry.hash).toMatch(/^[0-9a-f]{64}$/);
        if (i > 0) expect(entry.prev).toBe(entries[i - 1]?.hash);
      });
      expect(await a.engine.verifyAudit()).toMatchObject({
        ok: true,
        chain: { unchained: 0, chained: entries.length },
      });
    }

    test('withdraws: filed on A, approved on B, one call, completed from the webhook', async ({
      replicated: { sandbox, slack, apps },
      calls,
    }) => {
      const { a, b } = apps;
      const id = await fileWithdrawal(a, '2500.50');
      await approveAs(b, id, APPROVER_A);
      await reaches(apps, id, 'sent');
      await sandbox.settleAll();
      await reaches(apps, id, 'completed');
      await updated(slack, id, 'Completed');
      await alerted(slack, 'Withdrawal completed');
      expect(calls.count('POST', '/v1/api/withdraw')).toBe(1);
      expect(calls.bodies('/v1/api/withdraw')[0]).toMatchObject({ amount: 2500.5, address: DEST });
      await auditChained(apps, id, ['filed', 'approved', 'sent', 'completed']);
    });

    test('redeems: the account is checked again at approval on B, one call, paid out', async ({
      replicated: { sandbox, slack, apps },
      calls,
    }) => {
      const { a, b } = apps;
      const { request } = await fileRedeem(a, '5,000.25');
      expect(request.display.accountName).toMatch(/\w+/);
      await approveAs(b, request.id, APPROVER_A);
      await reaches(apps, request.id, 'sent');
      // Resolved when filed and again when approved.
      expect(calls.count('POST', '/v1/api/account/verify')).toBe(2);
      expect(calls.bodies('/v1/api/redeemAsset')).toEqual([
        { amount: 5000.25, bankCode: '058', accountNumber: '0123456789' },
      ]);
      await sandbox.settleAll();
      await reaches(apps, request.id, 'completed');
      await updated(slack, request.id, 'Completed');
      await alerted(slack, 'Redemption paid out');
      expect(calls.count('POST', '/v1/api/redeemAsset')).toBe(1);
      await auditChained(apps, request.id, ['filed', 'approved', 'sent', 'completed']);
    });

    test('sends a redemption back from B when the account name changed since it was filed on A', async ({
      replicated: { slack, pair, apps },
      calls,
    }) => {
      const { a, b } = apps;
      const request = await announced(a, (await fileRedeem(a, '100')).request.id);
      await pair.a.set(`approval:${request.id}`, {
        ...request,
        display: { ...request.display, accountName: 'Old Owner' },
      });
      await approveAs(b, request.id, APPROVER_A);
      await updated(slack, request.id, 'Sent back');
      expect(calls.count('POST', '/v1/api/redeemAsset')).toBe(0);
      expect((await a.engine.get(request.id))?.state).toBe('pending');
      await auditChained(apps, request.id, ['filed']);
    });

    test('bridges: re-quoted at approval on B, one call, completed from the callback and webhook', async ({
      replicated: { sandbox, slack, apps },
      calls,
    }) => {
      const { a, b } = apps;
      const { base, bsc } = await networkIds(a);
      const { request } = await fileBridge(a, '100000', base, bsc, DEST);
      await approveAs(b, request.id, APPROVER_A);
      await reaches(apps, request.id, 'sent');
      expect(calls.count('POST', '/v1/api/bridge-quote')).toBe(2);
      await sandbox.settleAll();
      await reaches(apps, request.id, 'completed');
      await updated(slack, request.id, 'Completed');
      await alerted(slack, 'Bridge completed');
      expect(calls.bodies('/v1/api/bridge')).toEqual([
        {
          originNetworkId: base,
          destinationNetworkId: bsc,
          destinationAddress: DEST,
          callbackUrl: request.kind === 'bridge' ? request.payload.callbackUrl : '',
        },
      ]);
      await auditChained(apps, request.id, ['filed', 'approved', 'sent', 'completed']);
    });

    test('whitelists an address: filed on A, approved on B, one call, completed', async ({
      replicated: { slack, apps },
      calls,
    }) => {
      const { a, b } = apps;
      const { base } = await networkIds(a);
      const { request } = await fileWhitelist(a, base, 'base', DEST);
      await approveAs(b, request.id, APPROVER_A);
      await reaches(apps, request.id, 'completed');
      await updated(slack, request.id, 'Completed');
      expect(calls.bodies('/v1/api/whitelist')).toEqual([{ networkId: base, address: DEST }]);
      await auditChained(apps, request.id, ['filed', 'approved', 'completed']);
    });

    test('changes the settlement account after two approvals on different replicas, one call', async ({
      replicated: { slack, apps },
      calls,
    }) => {
      const { a, b } = apps;
      const { request } = await fileSettlement(a);
      expect(request.requiredApprovals).toBe(2);
      await approveAs(b, request.id, APPROVER_A);
      await updated(slack, request.id, '1 of 2');
      expect(calls.count('POST', '/v1/api/bank-account')).toBe(0);
      await approveAs(a, request.id, APPROVER_B);
      await reaches(apps, request.id, 'completed');
      await updated(slack, request.id, 'Completed');
      expect(calls.bodies('/v1/api/bank-account')).toEqual([
        {
          bankName: 'Guaranty Trust Bank',
          bankAccountName: request.display.accountName,
          bankAccountNumber: '0123456789',
        },
      ]);
      await auditChained(apps, request.id, ['filed', 'approved', 'completed']);
    });
  });
}
