// `/cngn deadletters` through the real bot: a signed webhook whose alert the fake Slack refuses becomes a
// dead letter; anyone sees it with Slack's answer, approvers re-post it (button + modal, or the text
// form) to a channel they choose, each re-post is audited, and a re-posted letter leaves the list.
import { describe, expect } from 'vitest';
import { botTest } from '../../support/bot.js';
import { blockAction, commandAnswer, viewSubmission } from '../../support/slack-requests.js';
import { postWebhook, webhookBody } from '../../support/webhook-rig.js';
import { APPROVER_A, type ApprovalApp, OUTSIDER, waitUntil } from '../approvals/support.js';

/** Refs whose alert Slack refuses, and channels where Slack refuses everything. */
interface Refusing {
  refs: Set<string>;
  channels: Set<string>;
}

/** `app`, the bot on a fake Slack that refuses what `refusing` names. */
const test = botTest
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads what a fixture needs from this pattern.
  .extend('refusing', async ({}): Promise<Refusing> => ({ refs: new Set(), channels: new Set() }))
  .extend('app', async ({ startApp, refusing }) => {
    const app = await startApp();
    app.slack.on('chat.postMessage', (call) => {
      const body = JSON.stringify(call.body);
      if (refusing.channels.has(String(call.body.channel)))
        return { body: { ok: false, error: 'not_in_channel' } };
      if (call.body.channel === 'CALERTS' && [...refusing.refs].some((ref) => body.includes(ref)))
        return { body: { ok: false, error: 'invalid_arguments' } };
      return undefined;
    });
    return app;
  });

async function cngn(app: ApprovalApp, text: string, userId: string): Promise<Record<string, unknown>> {
  return (await commandAnswer(app, text, userId)).body;
}

/** A signed withdrawal.completed whose alert Slack refuses: it ends in the dead-letter list. */
async function deadLetter(app: ApprovalApp, refusing: Refusing, ref: string): Promise<void> {
  refusing.refs.add(ref);
  const reply = await postWebhook(
    `${app.baseUrl}/webhooks/cngn`,
    webhookBody('withdrawal.completed', { trx_ref: ref, trx_type: 'withdraw', amount: '1234.50' }),
    app.sandbox.webhookSecret,
  );
  expect(reply.status).toBe(200);
  await waitUntil(
    async () => (await app.webhooks?.deadLetters?.open())?.some((l) => l.event.data.trx_ref === ref) ?? false,
    `dead letter ${ref}`,
  );
}

describe('/cngn deadletters', () => {
  test('lists refused alerts with why; an approver re-posts one through the modal, audited, and it leaves the list', async ({
    app,
    refusing,
  }) => {
    await deadLetter(app, refusing, 'REF-DEAD-1');
    const listed = await cngn(app, 'deadletters', OUTSIDER);
    const text = JSON.stringify(listed);
    expect(text).toContain('Alerts Slack refused (1)');
    expect(text).toContain('REF-DEAD-1');
    expect(text).toContain('invalid_arguments');
    const blocks = listed.blocks as Array<{ accessory?: { action_id: string; value: string } }>;
    const button = blocks.find((b) => b.accessory)?.accessory;
    expect(button?.action_id).toBe('deadletters.repost');

    // Someone who is not an approver gets told so (by the access gate), and no modal opens.
    await blockAction(app.sender, {
      actionId: 'deadletters.repost',
      value: button?.value ?? '',
      userId: OUTSIDER,
      responseUrl: app.slack.responseUrl('outsider-click'),
    });
    const refusal = await app.slack.waitFor('response_url:outsider-click');
    expect(String(refusal.body.text)).toContain('needs the *approver* role');
    expect(app.slack.callsTo('views.open')).toHaveLength(0);

    refusing.refs.clear(); // Slack would take it now
    await blockAction(app.sender, {
      actionId: 'deadletters.repost',
      value: button?.value ?? '',
      userId: APPROVER_A,
      responseUrl: app.slack.responseUrl('approver-click'),
    });
    const opened = await app.slack.waitFor('views.open');
    const view = opened.body.view as { callback_id: string; private_metadata: string; blocks: unknown[] };
    expect(JSON.stringify(view.blocks)).toContain('conversations_select');

    const missing = await viewSubmission(app.sender, {
      callbackId: view.callback_id,
      privateMetadata: view.private_metadata,
      userId: APPROVER_A,
      values: { 'deadletters.channel': { 'deadletters.channel': { type: 'conversations_select' } } },
    });
    expect(missing.json()).toMatchObject({ response_action: 'errors' });
    // A channel of the wrong type gets the field and the reason inline, and nothing is re-posted.
    for (const selected of [42, ['CREPOST'], { id: 'CREPOST' }]) {
      const wrong = await viewSubmission(app.sender, {
        callbackId: view.callback_id,
        privateMetadata: view.private_metadata,
        userId: APPROVER_A,
        values: {
          'deadletters.channel': {
            'deadletters.channel': { type: 'conversations_select', selected_conversation: selected },
          },
        },
      });
      expect(wrong.json()).toEqual({
        response_action: 'errors',
        errors: { 'deadletters.channel': expect.stringMatching(/^Channel: .+/) },
      });
    }

    await viewSubmission(app.sender, {
      callbackId: view.callback_id,
      privateMetadata: view.private_metadata,
      userId: APPROVER_A,
      values: {
        'deadletters.channel': {
          'deadletters.channel': { type: 'conversations_select', selected_conversation: 'CREPOST' },
        },
      },
    });
    const reposted = await app.slack.waitFor(
      'chat.postMessage',
      (c) => c.body.channel === 'CREPOST' && JSON.stringify(c.body).includes('REF-DEAD-1'),
    );
    expect(JSON.stringify(reposted.body.blocks)).toContain(
      'Re-posted from the dead-letter list by <@UAPPROVERA>',
    );
    const told = await app.slack.waitFor(
      'chat.postMessage',
      (c) => c.body.channel === APPROVER_A && String(c.body.text).includes('Re-posted'),
    );
    expect(String(told.body.text)).toContain('<#CREPOST>');

    expect(JSON.stringify(await cngn(app, 'deadletters', OUTSIDER))).toContain('No dead letters');
    const audited = (await app.engine.audit(10)).filter((e) => e.kind === 'alert');
    expect(audited).toMatchObject([{ action: 'reposted', actor: APPROVER_A }]);
    expect(audited[0]?.note).toContain('REF-DEAD-1 to CREPOST');
    expect(JSON.stringify(await cngn(app, 'audit verify', APPROVER_A))).toContain('Audit chain intact');
  });

  test('re-posts all by text command; a channel Slack refuses keeps the letters listed, and that is audited too', async ({
    app,
    refusing,
  }) => {
    await deadLetter(app, refusing, 'REF-DEAD-2');
    await deadLetter(app, refusing, 'REF-DEAD-3');
    refusing.refs.clear();
    expect(JSON.stringify(await cngn(app, 'deadletters repost all <#CREPOST|ops>', OUTSIDER))).toContain(
      'Only approvers',
    );

    refusing.channels.add('CCLOSED');
    const refusedAnswer = JSON.stringify(
      await cngn(app, 'deadletters repost all <#CCLOSED|closed>', APPROVER_A),
    );
    expect(refusedAnswer).toContain('not_in_channel');
    expect(JSON.stringify(await cngn(app, 'deadletters', OUTSIDER))).toContain('Alerts Slack refused (2)');

    const answer = String((await cngn(app, 'deadletters repost all <#CREPOST|ops>', APPROVER_A)).text);
    expect(answer.match(/Re-posted/g)).toHaveLength(2);
    for (const ref of ['REF-DEAD-2', 'REF-DEAD-3']) {
      await app.slack.waitFor(
        'chat.postMessage',
        (c) => c.body.channel === 'CREPOST' && JSON.stringify(c.body).includes(ref),
      );
    }
    expect(JSON.stringify(await cngn(app, 'deadletters', OUTSIDER))).toContain('No dead letters');
    const actions = (await app.engine.audit(20)).filter((e) => e.kind === 'alert').map((e) => e.action);
    expect(actions).toEqual(['repost-refused', 'repost-refused', 'reposted', 'reposted']);
    // Once re-posted it is gone: asking again re-posts nothing.
    expect(JSON.stringify(await cngn(app, 'deadletters repost all CREPOST', APPROVER_A))).toContain(
      'No dead letters to re-post',
    );
  });
});

describe('/cngn deadletters repost by text', () => {
  test('asks for a picked channel or its ID when given a #name as plain text, and for the usage when words are missing', async ({
    app,
    refusing,
  }) => {
    await deadLetter(app, refusing, 'REF-DEAD-4');
    const plain = JSON.stringify(await cngn(app, 'deadletters repost all #ops', APPROVER_A));
    // A channel picked from Slack's list arrives as `<#C…|name>` and is taken (above): the answer says so.
    expect(plain).toContain("type # and pick the channel from Slack's list (it then comes with its ID)");
    expect(plain).toContain('give its ID');
    expect(plain).not.toContain('reaches the bot without its ID');
    expect(JSON.stringify(await cngn(app, 'deadletters repost', APPROVER_A))).toContain('Usage');
    expect(JSON.stringify(await cngn(app, 'deadletters', OUTSIDER))).toContain('REF-DEAD-4');
  });
});

describe('/cngn deadletters repost, twice at once', () => {
  test('posts the letter once when two approvers re-post it at the same moment', async ({
    app,
    refusing,
  }) => {
    await deadLetter(app, refusing, 'REF-DEAD-5');
    refusing.refs.clear();
    const [letter] = (await app.webhooks?.deadLetters?.open()) ?? [];
    const id = letter?.id.slice(0, 8) ?? '';
    const answers = await Promise.all(
      [APPROVER_A, 'UAPPROVERB'].map((user) => cngn(app, `deadletters repost ${id} CREPOST`, user)),
    );
    const texts = answers.map((a) => String(a.text));
    expect(texts.filter((t) => t.startsWith('Re-posted'))).toHaveLength(1);
    const posts = app.slack
      .callsTo('chat.postMessage')
      .filter((c) => c.body.channel === 'CREPOST' && JSON.stringify(c.body).includes('REF-DEAD-5'));
    expect(posts).toHaveLength(1);
    expect((await app.engine.audit(10)).filter((e) => e.action === 'reposted')).toHaveLength(1);
  });
});

describe('/cngn deadletters repost when the audit log cannot be written', () => {
  test('keeps the letter listed, so no re-post goes unrecorded; the next re-post is recorded', async ({
    app,
    refusing,
  }) => {
    await deadLetter(app, refusing, 'REF-DEAD-6');
    refusing.refs.clear();
    const [letter] = (await app.webhooks?.deadLetters?.open()) ?? [];
    const id = letter?.id.slice(0, 8) ?? '';
    const recordAudit = app.engine.recordAudit.bind(app.engine);
    app.engine.recordAudit = async () => {
      throw new Error('the store is not answering');
    };
    try {
      const answer = JSON.stringify(await cngn(app, `deadletters repost ${id} CREPOST`, APPROVER_A));
      expect(answer).toContain('but the audit log could not record it, so it stays in the list');
    } finally {
      app.engine.recordAudit = recordAudit;
    }
    // Slack took it, but without its audit entry it did not leave the list.
    expect(JSON.stringify(await cngn(app, 'deadletters', OUTSIDER))).toContain('REF-DEAD-6');
    expect(String((await cngn(app, `deadletters repost ${id} CREPOST`, APPROVER_A)).text)).toContain(
      'Re-posted',
    );
    expect(JSON.stringify(await cngn(app, 'deadletters', OUTSIDER))).toContain('No dead letters');
    const audited = (await app.engine.audit(10)).filter((e) => e.action === 'reposted');
    expect(audited).toHaveLength(1);
    const posts = app.slack
      .callsTo('chat.postMessage')
      .filter((c) => c.body.channel === 'CREPOST' && JSON.stringify(c.body).includes('REF-DEAD-6'));
    expect(posts).toHaveLength(2); // the one its entry could not be written for, and the recorded one
  });
});
