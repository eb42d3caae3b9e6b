// Policy changes on the record, through the real bot: each start compares its settings with the last
// ones in the audit chain; the first policy and each change are appended once, then posted to the
// approvals channel; `/cngn audit` and the CSV export show the entry.
import { expect } from 'vitest';
import { auditCsv } from '../../../src/audit/export-files.js';
import { AuditLog } from '../../../src/audit/log.js';
import { mentionsAsMarkup } from '../../../src/format/mrkdwn.js';
import { createStore, type Store } from '../../../src/store/index.js';
import { FakeSlack } from '../../support/fake-slack.js';
import { test } from '../../support/fixtures.js';
import { APPROVALS_CHANNEL } from '../../support/harness.js';
import { commandAnswer } from '../../support/slack-requests.js';
import { type ApprovalAppOptions, startApprovalApp } from '../approvals/support.js';

/** Starts the bot on `store`, posting to `slack`, and stops it after the test. */
async function startOn(
  store: Store,
  slack: FakeSlack,
  defer: (cleanup: () => unknown) => void,
  options: ApprovalAppOptions = {},
) {
  const app = await startApprovalApp({ store, slack, recordPolicy: true, ...options });
  defer(() => app.stop());
  await app.engine.idle(); // the settings recorded at start are told in the background
  return app;
}

async function world(defer: (cleanup: () => unknown) => void) {
  const store = await createStore('memory://');
  const slack = await FakeSlack.start();
  defer(() => store.close());
  defer(() => slack.stop());
  return { store, slack };
}

const policyPosts = (slack: FakeSlack) =>
  slack
    .callsTo('chat.postMessage')
    .filter(
      (c) =>
        c.body.channel === APPROVALS_CHANNEL &&
        JSON.stringify(c.body).includes('Recorded in the audit chain'),
    );
const policyEntries = async (store: Store) =>
  (await new AuditLog(store).entries('sandbox')).filter((e) => e.kind === 'policy');

test('the first start records the whole policy once, and a restart with the same settings adds nothing', async ({
  defer,
}) => {
  const { store, slack } = await world(defer);
  const first = await startOn(store, slack, defer);
  await first.stop();
  await startOn(store, slack, defer);
  const [entry, ...more] = await policyEntries(store);
  expect(more).toEqual([]);
  expect(entry?.subject).toBe('policy recorded');
  expect(entry?.policy?.changes).toContain(
    'approvals needed by amount: 1 below ₦1,000,000.00, 2 from ₦1,000,000.00',
  );
  const posts = policyPosts(slack);
  expect(posts).toHaveLength(1);
  const shown = JSON.stringify(posts[0]?.body.blocks);
  expect(shown).toContain('Approval policy recorded');
  expect(shown).toContain(`Recorded in the audit chain as #${entry?.seq}`);
});

test('a policy changed across a restart is recorded once and posted once, with mentions for people', async ({
  defer,
}) => {
  const { store, slack } = await world(defer);
  const first = await startOn(store, slack, defer, { approverGroup: 'S0TREASURY' });
  await first.stop();
  slack.reset();
  await startOn(store, slack, defer, {
    tiers: '0:1,500000:2',
    dailyLimit: '5000000',
    approvers: ['UAPPROVERA', 'UAPPROVERB', 'U0EFE'],
  });
  const entries = await policyEntries(store);
  expect(entries).toHaveLength(2);
  expect(entries[1]?.policy?.changes).toEqual([
    'approvers: +@U0EFE −@UREQ −@S0TREASURY',
    'approvals needed by amount: 1 below ₦1,000,000.00, 2 from ₦1,000,000.00 → 1 below ₦500,000.00, 2 from ₦500,000.00',
    'daily limit: none → ₦5,000,000.00',
  ]);
  const posts = policyPosts(slack);
  expect(posts).toHaveLength(1);
  const shown = JSON.stringify(posts[0]?.body.blocks);
  expect(shown).toContain('Approval policy changed');
  // Mentions stay mentions (Slack shows names); the arrow and the amount are plain text.
  expect(shown).toContain('+<@U0EFE> −<@UREQ> −<!subteam^S0TREASURY>');
  expect(shown).toContain(
    'approvals needed by amount: 1 below ₦1,000,000.00, 2 from ₦1,000,000.00 → 1 below ₦500,000.00, 2 from ₦500,000.00',
  );
  expect(shown).toContain(`Recorded in the audit chain as #${entries[1]?.seq}`);
  expect((await new AuditLog(store).verify('sandbox')).ok).toBe(true);
});

test('two replicas starting together with a new policy write one entry and post it once', async ({
  defer,
}) => {
  const { store, slack } = await world(defer);
  const other = await FakeSlack.start();
  defer(() => other.stop());
  await Promise.all([
    startOn(store, slack, defer, { tiers: '0:2' }),
    startOn(store, other, defer, { tiers: '0:2' }),
  ]);
  expect(await policyEntries(store)).toHaveLength(1);
  expect(policyPosts(slack).length + policyPosts(other).length).toBe(1);
});

test('`/cngn audit` lists the entry with its people as mentions, and the CSV export holds its lines', async ({
  defer,
}) => {
  const { store, slack } = await world(defer);
  const app = await startOn(store, slack, defer);
  await app.engine.recordMembershipChange('S0TREASURY', ['U0EFE'], ['U0CHIDI']);
  const posted = policyPosts(slack).at(-1);
  expect(JSON.stringify(posted?.body.blocks)).toContain(
    'members of <!subteam^S0TREASURY>: +<@U0EFE> −<@U0CHIDI>',
  );
  const answer = JSON.stringify((await commandAnswer(app, 'audit 5', 'UAPPROVERA')).body);
  expect(answer).toContain('policy members of S0TREASURY');
  expect(answer).toContain('+<@U0EFE> −<@U0CHIDI>');
  const entries = await policyEntries(store);
  // The entry holds IDs, no markup; the export shows them as the mentions they always were.
  expect(entries.at(-1)?.note).toBe('members of @S0TREASURY: +@U0EFE −@U0CHIDI');
  expect(auditCsv(entries)).toContain('members of @S0TREASURY: +@U0EFE −@U0CHIDI');
  const csv = auditCsv(entries, [], mentionsAsMarkup);
  expect(csv).toContain('policy,policy-changed');
  expect(csv).toContain('members of <!subteam^S0TREASURY>: +<@U0EFE> −<@U0CHIDI>');
});

test('roles and a kind’s own approvers changed across a restart are recorded in words', async ({ defer }) => {
  const { store, slack } = await world(defer);
  const first = await startOn(store, slack, defer, {
    config: { roles: { auditors: ['U0EFE'], approversByKind: { settlement: ['U0EFE', 'U0CHIDI'] } } },
  });
  await first.stop();
  await startOn(store, slack, defer, {
    config: {
      roles: { readers: ['S0TREASURY'], approversByKind: { settlement: ['U0EFE', 'U0BOLA'] } },
    },
  });
  const entries = await policyEntries(store);
  expect(entries).toHaveLength(2);
  expect(entries[1]?.policy?.changes).toEqual([
    'readers: every member who is not a guest → @S0TREASURY',
    'auditors: @U0EFE → the approvers only',
    'approvers for settlement: +@U0BOLA −@U0CHIDI',
  ]);
});

const FREEZE = 'freeze checking the approvers group';

test('a user group’s members, as first read after a start, are recorded and posted when they differ', async ({
  defer,
}) => {
  const { store, slack } = await world(defer);
  let members = ['U0EFE', 'U0ADA'];
  slack.on('usergroups.users.list', (call) =>
    call.body.usergroup === 'S0TREASURY' ? { body: { ok: true, users: members } } : undefined,
  );
  const listed = async () => (await policyEntries(store)).filter((e) => e.policy?.members);
  const posted = (text: string) =>
    slack.waitFor('chat.postMessage', (c) => JSON.stringify(c.body.blocks ?? '').includes(text));
  const first = await startOn(store, slack, defer, { approverGroup: 'S0TREASURY' });
  // Someone the list does not name asks to freeze: the approvers' group is read, the first read since the start.
  await commandAnswer(first, FREEZE, 'U0OUTSIDER');
  // A count, not every member as a mention (that would notify each); the entry lists them.
  await posted('members of <!subteam^S0TREASURY>: 2 members, first recorded');
  expect((await listed()).map((e) => e.note)).toEqual(['members of @S0TREASURY: 2 members, first recorded']);
  await first.stop();
  members = ['U0EFE'];
  const second = await startOn(store, slack, defer, { approverGroup: 'S0TREASURY' });
  await commandAnswer(second, FREEZE, 'U0OUTSIDER');
  await posted('members of <!subteam^S0TREASURY>: 1 member, −<@U0ADA>');
  expect((await listed()).map((e) => e.policy)).toEqual([
    expect.objectContaining({ members: ['U0ADA', 'U0EFE'] }),
    expect.objectContaining({ members: ['U0EFE'], added: [], removed: ['U0ADA'] }),
  ]);
});

test('a group only the readers name is read but not recorded: the verifier needs the approvers’ groups', async ({
  defer,
}) => {
  const { store, slack } = await world(defer);
  slack.on('usergroups.users.list', (call) =>
    call.body.usergroup === 'S0READERS' || call.body.usergroup === 'S0TREASURY'
      ? { body: { ok: true, users: ['U0EFE', 'U0ADA'] } }
      : undefined,
  );
  const app = await startOn(store, slack, defer, {
    approverGroup: 'S0TREASURY',
    config: { roles: { readers: ['S0READERS'], approversByKind: {} } },
  });
  // Someone the lists do not name asks: the readers' group is read, then the approvers'.
  await commandAnswer(app, 'policy', 'U0OUTSIDER');
  expect(slack.callsTo('usergroups.users.list').map((c) => c.body.usergroup)).toContain('S0READERS');
  await commandAnswer(app, FREEZE, 'U0OUTSIDER');
  await slack.waitFor('chat.postMessage', (c) => JSON.stringify(c.body.blocks ?? '').includes('2 members'));
  const groups = (await policyEntries(store)).map((e) => e.policy?.group).filter(Boolean);
  expect(groups).toEqual(['S0TREASURY']);
});
