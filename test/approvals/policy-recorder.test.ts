// The policy on the record, on every store: the first start records it whole, a start with the same
// settings records nothing, a changed policy is recorded once however many replicas start with it,
// and a user group's members seen to change by two replicas are recorded once.
import { describe, expect } from 'vitest';
import { parseTiers } from '../../src/access/tiers.js';
import {
  describePolicy,
  fingerprint,
  type PolicyInputs,
  policySnapshot,
} from '../../src/approvals/policy-record.js';
import { PolicyRecorder } from '../../src/approvals/policy-recorder.js';
import { AuditLog } from '../../src/audit/log.js';
import type { Store } from '../../src/store/index.js';
import { STORE_KINDS, storesTest as test } from '../support/shared-stores.js';

const HOUR = 3_600_000;
const inputs: PolicyInputs = {
  environment: 'sandbox',
  approvers: { users: ['U0ADA', 'U0BOLA'] },
  tiers: parseTiers('0:1,1000000:2'),
  limitWindowMs: 24 * HOUR,
  ttlMs: 24 * HOUR,
  reminders: [],
  notify: 'both',
};
const first = policySnapshot(inputs);
const changed = policySnapshot({ ...inputs, tiers: parseTiers('0:1,500000:2') });

/** The error @slack/web-api throws for an answer with `ok: false`. */
const slackSays = (error: string) =>
  Object.assign(new Error(`An API error occurred: ${error}`), {
    code: 'slack_webapi_platform_error',
    data: { ok: false, error },
  });

/** A warning the recorder logged: its line and fields. */
type Warning = { message: string; fields?: Record<string, unknown> };

/** One replica's recorder, telling what it recorded into `told`, logging its warnings into `warnings`. */
function recorder(store: Store, told: number[] = [], warnings: Warning[] = []): PolicyRecorder {
  const recorder = new PolicyRecorder({
    store,
    log: new AuditLog(store),
    environment: 'sandbox',
    now: () => new Date(),
    logger: { warn: (message, fields) => warnings.push({ message, ...(fields ? { fields } : {}) }) },
  });
  recorder.onRecorded(async (entry) => void told.push(entry.seq ?? -1));
  return recorder;
}

/** A replica's start: its settings recorded, then those not yet told told into `told`. */
async function started(store: Store, told: number[], snapshot: typeof first) {
  const replica = recorder(store);
  const entry = await replica.recordAtStart(snapshot);
  await replica.tellUntold(async (e) => void told.push(e.seq ?? -1));
  return entry;
}

const policyEntries = async (store: Store) =>
  (await new AuditLog(store).entries('sandbox')).filter((e) => e.kind === 'policy');

for (const kind of STORE_KINDS) {
  describe.skipIf(!kind.up)(`the policy on the record on ${kind.name}`, () => {
    test.override('storeKind', kind.name);

    test('records the first policy whole, once, and nothing at a start with the same one', async ({
      oneReplica,
    }) => {
      const a = await oneReplica(`policy-first-${kind.name}`);
      const told: number[] = [];
      const entry = await started(a, told, first);
      expect(entry?.subject).toBe('policy recorded');
      expect(entry?.actor).toBe('system');
      expect(entry?.policy?.changes).toContain('approvers: @U0ADA, @U0BOLA');
      expect(entry?.policy?.changes).toHaveLength(first.length);
      expect(await started(a, told, first)).toBeUndefined();
      expect(await policyEntries(a)).toHaveLength(1);
      expect(told).toEqual([entry?.seq]);
    });

    test('records a policy changed across a restart once, though two replicas start with it together', async ({
      replicas,
    }) => {
      const { a, b } = await replicas(`policy-change-${kind.name}`);
      await started(a, [], first);
      const told: number[] = [];
      const [one, two] = await Promise.all([started(a, told, changed), started(b, told, changed)]);
      const written = [one, two].filter((e) => e !== undefined);
      expect(written).toHaveLength(1);
      expect(written[0]?.action).toBe('policy-changed');
      expect(written[0]?.policy?.changes).toEqual([
        'approvals needed by amount: 1 below ₦1,000,000.00, 2 from ₦1,000,000.00 → 1 below ₦500,000.00, 2 from ₦500,000.00',
      ]);
      expect(written[0]?.policy?.settings).toContainEqual({ name: 'tiers', value: '0:1,500000:2' });
      expect(told).toEqual([written[0]?.seq]);
      expect(await policyEntries(a)).toHaveLength(2);
      expect((await new AuditLog(a).verify('sandbox')).ok).toBe(true);
      // The next start with the changed policy finds it on the record.
      expect(await recorder(b).recordAtStart(changed)).toBeUndefined();
    });

    test('keeps the lines an entry was recorded with, and words the next change against its settings', async ({
      oneReplica,
    }) => {
      const a = await oneReplica(`policy-earlier-lines-${kind.name}`);
      // As recorded when lines showed the stored text: the same settings, other words.
      const earlierLines = describePolicy(first).map((line) =>
        line.startsWith('approvals needed by amount:') ? 'tiers: 0:1,1000000:2' : line,
      );
      const earlier = await new AuditLog(a).append('sandbox', {
        at: new Date().toISOString(),
        kind: 'policy',
        action: 'policy-changed',
        actor: 'system',
        subject: 'policy recorded',
        note: earlierLines.join('; '),
        policy: { changes: earlierLines, settings: first, fingerprint: fingerprint(first) },
      });
      expect(await started(a, [], first)).toBeUndefined();
      const next = await started(a, [], changed);
      expect(next?.policy?.changes).toEqual([
        'approvals needed by amount: 1 below ₦1,000,000.00, 2 from ₦1,000,000.00 → 1 below ₦500,000.00, 2 from ₦500,000.00',
      ]);
      const [kept] = await policyEntries(a);
      expect(kept?.seq).toBe(earlier.seq);
      expect(kept?.policy?.changes).toContain('tiers: 0:1,1000000:2');
      expect((await new AuditLog(a).verify('sandbox')).ok).toBe(true);
    });

    test('settings whose telling failed, or never came, are told at a later start, in order, once', async ({
      replicas,
    }) => {
      const { a, b } = await replicas(`policy-untold-${kind.name}`);
      const one = await recorder(a).recordAtStart(first); // a start that stopped before telling
      const two = await recorder(a).recordAtStart(changed);
      await recorder(a).tellUntold(async () => {
        throw new Error('Slack refused (test)');
      });
      const told: number[] = [];
      await Promise.all([started(a, told, changed), started(b, told, changed)]);
      expect(told).toEqual([one?.seq, two?.seq]);
      await started(b, told, changed);
      expect(told).toHaveLength(2);
    });

    test('a post Slack holds keeps no replica from recording, and what was told is not told again', async ({
      replicas,
    }) => {
      const { a, b } = await replicas(`policy-slow-tell-${kind.name}`);
      const one = await recorder(a).recordAtStart(first);
      const told: number[] = [];
      let posting!: () => void;
      const atSlack = new Promise<void>((resolve) => {
        posting = resolve;
      });
      let answer!: () => void;
      const answered = new Promise<void>((resolve) => {
        answer = resolve;
      });
      const telling = recorder(a).tellUntold(async (e) => {
        told.push(e.seq ?? -1);
        posting();
        await answered;
      });
      await atSlack;
      const two = await recorder(b).recordAtStart(changed); // while Slack holds the first post
      answer();
      await telling;
      expect(told).toEqual([one?.seq, two?.seq]);
      await recorder(b).tellUntold(async (e) => void told.push(e.seq ?? -1));
      expect(told).toHaveLength(2);
    });

    test('settings Slack refuses to post for good are dropped, not tried at every start', async ({
      oneReplica,
    }) => {
      const a = await oneReplica(`policy-refused-${kind.name}`);
      await recorder(a).recordAtStart(first);
      await recorder(a).tellUntold(async () => {
        throw slackSays('invalid_blocks');
      });
      const told: number[] = [];
      await recorder(a).tellUntold(async (e) => void told.push(e.seq ?? -1));
      expect(told).toEqual([]);
    });

    test('settings told before a failure stay told; a revoked token keeps the rest for a later start', async ({
      oneReplica,
    }) => {
      const a = await oneReplica(`policy-partly-${kind.name}`);
      const one = await recorder(a).recordAtStart(first);
      const two = await recorder(a).recordAtStart(changed);
      const told: number[] = [];
      await recorder(a).tellUntold(async (e) => {
        if (e.seq === two?.seq) throw slackSays('token_revoked');
        told.push(e.seq ?? -1);
      });
      await recorder(a).tellUntold(async (e) => void told.push(e.seq ?? -1));
      expect(told).toEqual([one?.seq, two?.seq]);
    });

    test('settings never told past the ten kept to tell are logged as dropped, and the newest ten told', async ({
      oneReplica,
    }) => {
      const a = await oneReplica(`policy-untold-cap-${kind.name}`);
      const warnings: Warning[] = [];
      const seqs: number[] = [];
      // Twelve starts, each with other settings, none reaching Slack.
      for (let hours = 1; hours <= 12; hours++) {
        const settings = policySnapshot({ ...inputs, limitWindowMs: hours * HOUR });
        seqs.push((await recorder(a, [], warnings).recordAtStart(settings))?.seq ?? -1);
      }
      const dropped = (seq: number | undefined) => ({
        message: 'policy changes were recorded but never told, more than are kept to tell; not posted',
        fields: { dropped: 1, seqs: [seq] },
      });
      expect(warnings).toEqual([dropped(seqs[0]), dropped(seqs[1])]);
      const told: number[] = [];
      await recorder(a).tellUntold(async (e) => void told.push(e.seq ?? -1));
      expect(told).toEqual(seqs.slice(2));
    });

    test('two replicas starting together on a new store record the first policy once', async ({
      replicas,
    }) => {
      const { a, b } = await replicas(`policy-together-${kind.name}`);
      await Promise.all([recorder(a).recordAtStart(first), recorder(b).recordAtStart(first)]);
      expect(await policyEntries(b)).toHaveLength(1);
    });

    test('records a user group’s members seen to change once, though two replicas see it', async ({
      replicas,
    }) => {
      const { a, b } = await replicas(`policy-members-${kind.name}`);
      await recorder(a).recordAtStart(first);
      const [one, two] = await Promise.all([
        recorder(a).recordMembershipChange('S0TREASURY', ['U0EFE'], ['U0CHIDI']),
        recorder(b).recordMembershipChange('S0TREASURY', ['U0EFE'], ['U0CHIDI']),
      ]);
      const written = [one, two].filter((e) => e !== undefined);
      expect(written.map((e) => e.policy?.changes)).toEqual([['members of @S0TREASURY: +@U0EFE −@U0CHIDI']]);
      expect(written[0]?.subject).toBe('members of S0TREASURY');
      // Leaving and joining again are changes of their own.
      const left = await recorder(a).recordMembershipChange('S0TREASURY', [], ['U0EFE']);
      expect(left?.policy?.changes).toEqual(['members of @S0TREASURY: −@U0EFE']);
      expect(await policyEntries(a)).toHaveLength(3);
      // A membership entry holds no settings: the next start compares with the last settings recorded.
      expect(await recorder(b).recordAtStart(first)).toBeUndefined();
    });

    test('records a user group’s members as first read once, and again only when they differ from those recorded', async ({
      replicas,
    }) => {
      const { a, b } = await replicas(`policy-listing-${kind.name}`);
      await recorder(a).recordMembershipChange('S0TREASURY', ['U0ADA'], []);
      const [one, two] = await Promise.all([
        recorder(a).recordMembers('S0TREASURY', ['U0EFE', 'U0ADA']),
        recorder(b).recordMembers('S0TREASURY', ['U0ADA', 'U0EFE']),
      ]);
      const written = [one, two].filter((e) => e !== undefined);
      expect(written.map((e) => e.policy)).toEqual([
        {
          changes: ['members of @S0TREASURY: 2 members, +@U0EFE'],
          group: 'S0TREASURY',
          members: ['U0ADA', 'U0EFE'],
          added: ['U0EFE'],
          removed: [],
        },
      ]);
      // The same members read again after a restart: nothing; one gone: listed again.
      expect(await recorder(b).recordMembers('S0TREASURY', ['U0EFE', 'U0ADA'])).toBeUndefined();
      const shrunk = await recorder(a).recordMembers('S0TREASURY', ['U0EFE']);
      expect(shrunk?.policy).toMatchObject({
        changes: ['members of @S0TREASURY: 1 member, −@U0ADA'],
        members: ['U0EFE'],
        added: [],
        removed: ['U0ADA'],
      });
      // An empty group never recorded is nothing to list.
      expect(await recorder(a).recordMembers('S0EMPTY', [])).toBeUndefined();
      expect(await policyEntries(a)).toHaveLength(3);
    });
  });
}
