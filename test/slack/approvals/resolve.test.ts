// `/cngn resolve`: after the bot asks a person to check an outcome-unknown request, an approver other
// than the requester records what they found. Audited, shown on the request, and nothing is resent.
import { describe, expect } from 'vitest';
import { botTest as test } from '../../support/bot.js';
import { commandAnswer } from '../../support/slack-requests.js';
import {
  APPROVER_A,
  APPROVER_B,
  type ApprovalApp,
  approve,
  fileWithdrawal,
  OUTSIDER,
  REQUESTER,
} from './support.js';

const withdrawCalls = (app: ApprovalApp) => app.sandbox.count('POST', '/v1/api/withdraw');

/** Runs `/cngn <text>` as `userId` and returns the private answer's text. */
async function resolve(app: ApprovalApp, text: string, userId: string): Promise<string> {
  return JSON.stringify((await commandAnswer(app, text, userId)).body);
}

async function unknownWithdrawal(app: ApprovalApp): Promise<string> {
  app.sandbox.dropResponse('POST', '/v1/api/withdraw');
  const id = await fileWithdrawal(app, '4321.09');
  await approve(app, id, APPROVER_A);
  await app.slack.waitFor('chat.update', (c) => JSON.stringify(c.body.blocks).includes('Outcome unknown'));
  await app.engine.idle();
  expect((await app.engine.get(id))?.state).toBe('outcome-unknown');
  return id;
}

describe('/cngn resolve', () => {
  test('lets another approver mark it failed with a note: audited, shown, never resent', async ({ app }) => {
    const id = await unknownWithdrawal(app);
    const answer = await resolve(
      app,
      `resolve ${id.toLowerCase()} failed not on the dashboard, support agrees`,
      APPROVER_B,
    );
    expect(answer).toContain(`${id} is now marked *failed*`);
    const request = await app.engine.get(id);
    expect(request?.state).toBe('failed');
    expect(request?.history.at(-1)).toMatchObject({
      action: 'failed',
      actor: APPROVER_B,
      note: 'checked by hand: not on the dashboard, support agrees',
    });
    expect((await app.engine.audit(1))[0]).toMatchObject({
      requestId: id,
      action: 'failed',
      actor: APPROVER_B,
    });
    await app.slack.waitFor('chat.update', (c) => JSON.stringify(c.body.blocks).includes('Failed'));
    await app.slack.waitFor(
      'chat.postMessage',
      (c) => c.body.channel === REQUESTER && String(c.body.text).includes('checked by hand'),
    );
    expect(withdrawCalls(app)).toBe(1);
  });

  test('stores the note as typed: Slack’s &amp;, &lt; and &gt; are decoded, and a link keeps the words typed', async ({
    app,
  }) => {
    const id = await unknownWithdrawal(app);
    // What Slack sends for `A & B <checked> see example.com/x?a=1&b=2` typed in the command.
    await resolve(
      app,
      `resolve ${id} failed A &amp; B &lt;checked&gt; &amp;lt; see <http://example.com/x?a=1&amp;b=2|example.com/x?a=1&amp;b=2>`,
      APPROVER_B,
    );
    expect((await app.engine.get(id))?.history.at(-1)?.note).toBe(
      'checked by hand: A & B <checked> &lt; see example.com/x?a=1&b=2',
    );
  });

  test('refuses the requester and outsiders, and changes nothing', async ({ app }) => {
    const id = await unknownWithdrawal(app);
    const mine = await resolve(app, `resolve ${id} completed I saw it land`, REQUESTER);
    expect(mine).toContain('so you cannot record its outcome: another approver must');
    // Past its approval, a request can no longer be cancelled: nobody is told they can.
    expect(mine).not.toContain('cancel');
    expect(await resolve(app, `resolve ${id} completed I saw it land`, OUTSIDER)).toContain(
      'needs the *approver* role',
    );
    expect((await app.engine.get(id))?.state).toBe('outcome-unknown');
  });

  test('only resolves a request whose outcome is unknown', async ({ app }) => {
    const id = await fileWithdrawal(app, '10');
    const answer = await resolve(app, `resolve ${id} completed it went through`, APPROVER_B);
    expect(answer).toContain('only a request whose outcome is unknown');
    expect((await app.engine.get(id))?.state).toBe('pending');
  });

  test('says which part of the command is wrong', async ({ app }) => {
    const id = await unknownWithdrawal(app);
    expect(await resolve(app, 'resolve nonsense failed x y z', APPROVER_B)).toContain('Request: give its id');
    expect(await resolve(app, `resolve ${id} maybe checked it`, APPROVER_B)).toContain('Outcome: say');
    expect(await resolve(app, `resolve ${id} failed`, APPROVER_B)).toContain('Note: say in a few words');
    expect((await app.engine.get(id))?.state).toBe('outcome-unknown');
  });
});
