// Text from outside that names a member of every JavaScript object (`__proto__`, `constructor`,
// `valueOf`, `toString`, `hasOwnProperty`) is only text: as the team, user or channel of a signed
// Slack request, as a webhook's event name, network or transaction type. No lookup finds Object's
// own members, so nothing answers 500, no listener fails, and no request changes state.
import { describe, expect } from 'vitest';
import { webhookEventSchema } from '../../../src/cngn/schemas.js';
import { explorerUrl } from '../../../src/format/explorer.js';
import { escapeMrkdwn } from '../../../src/format/mrkdwn.js';
import { checkWalletAddress, familyOf } from '../../../src/format/wallet-address.js';
import { signBody } from '../../../src/sandbox/index.js';
import { alertDigestMessage } from '../../../src/slack/alerts/digest-blocks.js';
import { webhookMessage } from '../../../src/slack/alerts/message-blocks.js';
import { REDEEM } from '../../../src/slack/approvals/blocks/bank-modal.js';
import { typeWord } from '../../../src/slack/reads/blocks.js';
import { botTest as test } from '../../support/bot.js';
import { capturedLog } from '../../support/captured-log.js';
import { OBJECT_MEMBER_NAMES } from '../../support/fuzz.js';
import { ALERTS_CHANNEL } from '../../support/harness.js';
import { interaction, newTriggerId, postSigned, slashCommand } from '../../support/slack-requests.js';
import {
  APPROVER_A,
  type ApprovalApp,
  type ApprovalAppOptions,
  approve,
  fileWithdrawal,
  waitUntil,
} from '../approvals/support.js';
import { slackTexts } from '../builders/support.js';

/** What `{}[name]` would have given, shown as text: a sign that a lookup found Object's member. */
const LEAKED = /native code|\[object Object\]|function |undefined/;

async function startWithLog(startApp: (options: ApprovalAppOptions) => Promise<ApprovalApp>) {
  const { logger, entries } = capturedLog('warn');
  const app = await startApp({ withWebhooks: true, logger });
  return { app, failures: () => entries.filter((l) => l.level === 'error').map((l) => JSON.stringify(l)) };
}

describe('ids of a signed Slack request named after an Object member', () => {
  test('answers a bank search, a click and a command from each of them', async ({ startApp }) => {
    const { app, failures } = await startWithLog(startApp);
    const responseUrl = app.slack.responseUrl('members');
    for (const name of OBJECT_MEMBER_NAMES) {
      // The case the fuzzing found: a bank search whose team is `valueOf` was answered 500.
      const search = await interaction(app.sender, {
        type: 'block_suggestion',
        team: { id: name, domain: 'treasury' },
        user: { id: 'UREQ', team_id: name },
        api_app_id: 'A1',
        action_id: REDEEM.bank,
        block_id: REDEEM.bank,
        value: 'guaranty',
      });
      expect(search.status, `bank search from team ${name}`).toBe(200);
      // A team that is not the bot's own is another workspace: it is offered nothing.
      expect(search.json()).toEqual({ options: [] });

      const clicked = await interaction(app.sender, {
        type: 'block_actions',
        team: { id: name, domain: 'treasury' },
        user: { id: name, username: name, team_id: name },
        api_app_id: 'A1',
        trigger_id: newTriggerId(),
        response_url: responseUrl,
        channel: { id: name, name },
        container: { type: 'message', message_ts: '1700000000.000100', channel_id: name },
        message: { ts: '1700000000.000100', type: 'message' },
        actions: [
          {
            action_id: 'approval.approve',
            block_id: name,
            type: 'button',
            value: `${name}:1`,
            action_ts: '1',
          },
        ],
      });
      expect(clicked.status, `click by ${name}`).toBe(200);

      const command = await slashCommand(app.sender, {
        text: name,
        userId: name,
        channelId: name,
        responseUrl,
      });
      expect(command.status, `/cngn ${name}`).toBe(200);
    }
    await app.engine.idle();
    expect(failures()).toEqual([]);
  });

  test('refuses a team id that is an object rather than text, with the field named', async ({ startApp }) => {
    const { app, failures } = await startWithLog(startApp);
    // Used as a key, `{ toString: [] }` cannot become one: it threw inside Bolt (a 500).
    const odd = { toString: [] };
    const event = JSON.stringify({
      type: 'event_callback',
      team_id: 'T1',
      api_app_id: 'A1',
      event: { type: 'app_home_opened', user: 'UREQ', channel: 'D1' },
      authorizations: [{ team_id: odd, enterprise_id: null }],
    });
    const refused = await postSigned(app.sender, event, { contentType: 'application/json' });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatch(/^refused: event: authorizations\.0\.team_id: /);
    const search = await interaction(app.sender, {
      type: 'block_suggestion',
      team: null,
      user: { id: 'UREQ', team_id: odd },
      api_app_id: 'A1',
      action_id: REDEEM.bank,
      block_id: REDEEM.bank,
      value: 'guaranty',
    });
    expect(search.status).toBe(400);
    expect(search.body).toMatch(/^refused: block_suggestion: user\.team_id: /);
    expect(failures()).toEqual([]);
  });
});

describe('a webhook that names an Object member', () => {
  test('leaves a sent withdrawal as it is when a signed event called `constructor` names its reference', async ({
    startApp,
  }) => {
    const { app, failures } = await startWithLog(startApp);
    const id = await fileWithdrawal(app, '2500');
    await approve(app, id, APPROVER_A);
    await waitUntil(async () => (await app.engine.get(id))?.state === 'sent', 'sent');
    const reference = (await app.engine.get(id))?.outcome?.reference ?? '';
    for (const event of OBJECT_MEMBER_NAMES) {
      const body = JSON.stringify({
        event,
        data: { trx_ref: reference, status: 'processing', amount: '2500' },
      });
      const answer = await fetch(`${app.baseUrl}/webhooks/cngn`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-cngn-signature': signBody(body, app.sandbox.webhookSecret),
        },
        body,
      });
      expect(answer.status, event).toBeLessThan(300);
    }
    // Every event is posted as an unknown kind, by its name (escaped); the request did not move.
    for (const event of OBJECT_MEMBER_NAMES) {
      await app.slack.waitFor(
        'chat.postMessage',
        (c) =>
          c.body.channel === ALERTS_CHANNEL &&
          String(c.body.text).includes(`cNGN event ${escapeMrkdwn(event)}`),
      );
    }
    const request = await app.engine.get(id);
    expect(request?.state).toBe('sent');
    expect(request?.history.at(-1)?.action).toBe('sent');
    expect(failures()).toEqual([]);
  });

  test.each(OBJECT_MEMBER_NAMES)(
    'shows the name %s as itself in alerts and digests, never a member of Object',
    (name) => {
      const event = webhookEventSchema.parse({
        event: name,
        data: {
          trx_ref: 'REF-1',
          amount: '10',
          trx_type: name,
          network: name,
          base_trx_hash: `0x${'a'.repeat(64)}`,
        },
      });
      const shown = [
        webhookMessage({ event, origin: 'webhook', environment: 'live' }),
        webhookMessage({
          event: { ...event, event: 'transaction.failed' },
          origin: 'webhook',
          environment: 'live',
        }),
        alertDigestMessage({
          alerts: [{ event, origin: 'webhook', environment: 'live' }],
          environment: 'live',
          part: 1,
          more: false,
        }),
      ].flatMap((message) => slackTexts(message).mrkdwn);
      expect(shown.join('\n')).not.toMatch(LEAKED);
      expect(typeWord(name)).toBe(name.replace(/_/g, ' '));
      expect(explorerUrl(`0x${'a'.repeat(64)}`, null, name, 'live')).toBeUndefined();
      expect(familyOf({ base: 'evm' }, name)).toBeUndefined();
      // A family that came back from metadata as one of these names is checked as EVM, the strictest.
      expect(checkWalletAddress(name as never, '0x52908400098527886E0F7030069857D2E4169EE7').ok).toBe(true);
      expect(checkWalletAddress(name as never, 'not an address').ok).toBe(false);
    },
  );
});
