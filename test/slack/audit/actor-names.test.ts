// Who acted, as of then, through the real bot: each audit entry records its actor's Slack id with the
// name and e-mail Slack gave (users.info) when the step was taken; `/cngn audit` and the export show
// them. Without users:read.email the name alone, told once by the start-up check; when Slack cannot
// answer, the id alone, and the step is taken all the same.
import { expect } from 'vitest';
import { approveAsSeen } from '../../support/approve-as-seen.js';
import { botTest } from '../../support/bot.js';
import { capturedLog } from '../../support/captured-log.js';
import { parseCsv } from '../../support/csv.js';
import { FakeSlack } from '../../support/fake-slack.js';
import { commandAnswer } from '../../support/slack-requests.js';
import {
  APPROVER_A,
  APPROVER_B,
  type ApprovalApp,
  approve,
  fileWithdrawal,
  REQUESTER,
  waitUntil,
} from '../approvals/support.js';

type Line = { level: string; message: string } & Record<string, unknown>;

const test = botTest
  .extend('fakeSlack', async ({ defer }) => {
    const slack = await FakeSlack.start();
    defer(() => slack.stop());
    return slack;
  })
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads what a fixture needs from this pattern.
  .extend('log', async ({}) => capturedLog<Line>('debug'));

/** `/cngn <text>` as `userId`: the private answer, as sent. */
async function cngn(app: ApprovalApp, text: string, userId: string): Promise<string> {
  return JSON.stringify((await commandAnswer(app, text, userId)).body);
}

/** File a withdrawal and approve it; resolves once the request has gone to the service. */
async function fileAndApprove(app: ApprovalApp, amount: string): Promise<string> {
  const id = await fileWithdrawal(app, amount);
  await approve(app, id, APPROVER_A);
  await waitUntil(async () => (await app.engine.get(id))?.state === 'sent', `${id} sent`);
  return id;
}

test('records the approver’s name and e-mail as of the approval, and keeps them after a rename', async ({
  startApp,
  fakeSlack,
}) => {
  fakeSlack.people.set(APPROVER_A, { name: 'Ada Obi', email: 'ada@example.com' });
  fakeSlack.people.set(REQUESTER, { name: '=Tolu Bello' });
  const app = await startApp({ slack: fakeSlack });
  const id = await fileAndApprove(app, '1500');

  // Renamed in Slack afterwards, and the bot's directory forgets what it kept: the record stays as it was.
  fakeSlack.people.set(APPROVER_A, { name: 'Ada Renamed', email: 'ada.renamed@example.com' });
  app.approvals?.people?.forget();
  const entries = await app.engine.audit(20);
  expect(entries.find((e) => e.requestId === id && e.action === 'approved')).toMatchObject({
    actor: APPROVER_A,
    actorName: 'Ada Obi',
    actorEmail: 'ada@example.com',
  });
  expect(entries.find((e) => e.requestId === id && e.action === 'filed')).toMatchObject({
    actor: REQUESTER,
    actorName: '=Tolu Bello',
    actorEmail: 'ureq@example.com',
  });
  // The steps of the system (sent to the service) name nobody.
  const sent = entries.find((e) => e.requestId === id && e.action === 'sent');
  expect(sent?.actor).toBeUndefined();
  expect(sent).not.toHaveProperty('actorName');

  const list = await cngn(app, 'audit', APPROVER_B);
  expect(list).toContain(`*approved* by <@${APPROVER_A}> (Ada Obi)`);
  expect(list).not.toContain('Ada Renamed');

  expect(await cngn(app, 'audit export 1d', APPROVER_B)).toContain('audit entries');
  const csv = fakeSlack.sharedFiles().find((f) => f.filename.endsWith('.csv'));
  const [header = [], ...rows] = parseCsv(csv?.content?.toString('utf8') ?? '');
  expect(header.slice(header.indexOf('actor'), header.indexOf('actor') + 3)).toEqual([
    'actor',
    'actor_name',
    'actor_email',
  ]);
  const cells = (action: string) => {
    const row = rows.find((r) => r[header.indexOf('action')] === action) ?? [];
    return ['actor', 'actor_name', 'actor_email'].map((column) => row[header.indexOf(column)]);
  };
  expect(cells('approved')).toEqual([APPROVER_A, 'Ada Obi', 'ada@example.com']);
  // A name is a cell like any other: one a spreadsheet would run is made inert.
  expect(cells('filed')).toEqual([REQUESTER, "'=Tolu Bello", 'ureq@example.com']);
  expect(await cngn(app, 'audit verify', APPROVER_B)).toContain('Audit chain intact');
});

test('without users:read.email records the name only, and says so once, at start', async ({
  startApp,
  fakeSlack,
  log,
}) => {
  fakeSlack.scopes = fakeSlack.scopes.filter((scope) => scope !== 'users:read.email');
  fakeSlack.people.set(APPROVER_A, { name: 'Ada Obi' });
  const app = await startApp({ slack: fakeSlack, logger: log.logger });
  const ids = [await fileAndApprove(app, '1500'), await fileAndApprove(app, '1600')];

  const approved = (await app.engine.audit(20)).filter((e) => e.action === 'approved');
  expect(approved.map((e) => e.requestId)).toEqual(ids);
  for (const entry of approved) {
    expect(entry).toMatchObject({ actor: APPROVER_A, actorName: 'Ada Obi' });
    expect(entry).not.toHaveProperty('actorEmail');
  }
  const warnings = log.entries.filter((l) => l.level === 'warn' && l.message.includes('users:read.email'));
  expect(warnings.map((l) => l.message)).toEqual([
    "scope users:read.email is missing: reinstall the app from manifest.yml; until then recording the actor's e-mail in audit entries (the name alone is recorded) does not work",
  ]);
});

test('when Slack cannot say who it is, records the id alone and still takes the step', async ({
  startApp,
  fakeSlack,
  log,
}) => {
  const app = await startApp({ slack: fakeSlack, logger: log.logger });
  // Slack cannot answer users.info about the approver from the start, so no lookup made after the
  // filing (the approvers' DMs, whenever they run) puts them in the directory. A click would be refused
  // by the access gate (it cannot tell a guest from a member: test/slack/gate), so the step is taken
  // by the engine itself, whose audit lookup of the approver fails.
  let failing = true;
  fakeSlack.on('users.info', (call) =>
    failing && call.body.user === APPROVER_A ? { body: { ok: false, error: 'fatal_error' } } : undefined,
  );
  const id = await fileWithdrawal(app, '1500');
  expect((await approveAsSeen(app.engine, id, APPROVER_A)).ok).toBe(true);
  await waitUntil(async () => (await app.engine.get(id))?.state === 'sent', `${id} sent`);

  const approved = (await app.engine.audit(20)).find((e) => e.requestId === id && e.action === 'approved');
  expect(approved?.actor).toBe(APPROVER_A);
  expect(approved).not.toHaveProperty('actorName');
  expect(approved).not.toHaveProperty('actorEmail');
  expect(
    log.entries.filter(
      (l) => l.message === 'audit entry written with the actor id only: the directory lookup failed',
    ),
  ).toContainEqual(expect.objectContaining({ level: 'debug', actor: APPROVER_A }));
  failing = false;
  expect(await cngn(app, 'audit verify', APPROVER_B)).toContain('Audit chain intact');
});
