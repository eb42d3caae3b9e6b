// Where CNGN_REQUESTERS and CNGN_READERS name only some people: an approver who files what only
// approvers file (a delegation) still cancels and extends it, while another approver is still refused
// someone else's; a delegate reads what the approvers read (App Home, `/cngn pending`) while their
// delegation is live, and not once it has ended.
import { describe, expect } from 'vitest';
import { botTest as test } from '../../support/bot.js';
import { commandAnswer, homeOpened } from '../../support/slack-requests.js';
import { APPROVER_A, approve, click, REQUESTER, waitUntil } from '../approvals/support.js';

const CHIDI = 'UCHIDI'; // an approver, not a requester nor a named reader
const BOLA = 'UBOLA'; // Chidi's delegate, not a named reader
const ROLES = { requesters: [REQUESTER], readers: [REQUESTER], approversByKind: {} };

/** The private answer to `/cngn <text>` as `user`, text and blocks as one string. */
async function cngn(app: Parameters<typeof commandAnswer>[0], text: string, user: string): Promise<string> {
  const answer = await commandAnswer(app, text, user);
  return `${String(answer.body.text)} ${JSON.stringify(answer.body.blocks ?? [])}`;
}

const delegationId = (answer: string) => /AR-[0-9A-F]{10}/.exec(answer)?.[0] ?? '';

describe('an approver who is not a requester', () => {
  test('cancels and extends the delegation they filed; another approver cannot cancel it', async ({
    startApp,
  }) => {
    const app = await startApp({ approvers: [APPROVER_A, CHIDI], config: { roles: ROLES } });
    const id = delegationId(await cngn(app, `delegate <@${BOLA}|bola> until 3d`, CHIDI));
    expect((await app.engine.get(id))?.state).toBe('pending');
    expect(await cngn(app, `extend ${id} 1h`, CHIDI)).not.toContain('needs the');
    const extended = await app.engine.get(id);
    expect(extended?.extended).toBeTruthy();
    // Another approver passes the gate, and the engine says it is not theirs.
    expect((await click(app, 'approval.cancel', id, APPROVER_A)).status).toBe(200);
    const refused = await app.slack.waitFor(
      'chat.postEphemeral',
      (c) => c.body.user === APPROVER_A && String(c.body.text).includes('Only the requester'),
    );
    expect(refused.body.text).toContain('Only the requester can cancel');
    expect((await app.engine.get(id))?.state).toBe('pending');
    expect((await click(app, 'approval.cancel', id, CHIDI)).status).toBe(200);
    await waitUntil(async () => (await app.engine.get(id))?.state === 'cancelled', 'the cancel');
  });

  test('is still refused what only a requester files', async ({ startApp }) => {
    const app = await startApp({ approvers: [APPROVER_A, CHIDI], config: { roles: ROLES } });
    expect(await cngn(app, 'withdraw', CHIDI)).toContain('needs the *requester* role');
  });
});

describe('a delegate where CNGN_READERS is set', () => {
  test('opens `/cngn pending` and App Home while the delegation is live, and not once it ended', async ({
    startApp,
  }) => {
    const app = await startApp({ approvers: [APPROVER_A, CHIDI], config: { roles: ROLES } });
    expect(await cngn(app, 'pending', BOLA)).toContain('needs the *reader* role');
    const id = delegationId(await cngn(app, `delegate <@${BOLA}|bola> until 3d`, CHIDI));
    await approve(app, `${id}:0`, APPROVER_A);
    await waitUntil(async () => (await app.engine.get(id))?.state === 'completed', 'the delegation');
    expect(await cngn(app, 'pending', BOLA)).not.toContain('needs the');
    const published = app.slack.callsTo('views.publish').length;
    await homeOpened(app.sender, BOLA);
    const home = await app.slack.waitFor(
      'views.publish',
      (c) => c.body.user_id === BOLA && app.slack.callsTo('views.publish').indexOf(c) >= published,
    );
    const shown = JSON.stringify(home.body.view);
    expect(shown).not.toMatch(/You do not have|no longer hold/);
    expect(shown).toContain('Waiting for you');
    await app.engine.revokeDelegations(CHIDI, BOLA);
    expect(await cngn(app, 'pending', BOLA)).toContain('needs the *reader* role');
    // A reader in their own right is untouched.
    expect(await cngn(app, 'pending', REQUESTER)).not.toContain('needs the');
  });
});
