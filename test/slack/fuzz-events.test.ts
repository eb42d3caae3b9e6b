// Property-based: correctly signed bodies of any kind to POST /slack/events of the real bot — any JSON
// as application/json, any form, any `payload`, and Slack's own envelopes (slash command, button click,
// options request, modal submission, event, URL verification, SSL check) with any field of any type
// or missing, from the bot's own workspace or another team, user team or organisation. Each is
// acknowledged with a valid answer or refused with a clear 400/413; no listener fails, nothing goes
// unhandled, and the bot still answers /healthz.
import fc from 'fast-check';
import { describe, expect } from 'vitest';
import { REDEEM, SETTLEMENT } from '../../src/slack/approvals/blocks/bank-modal.js';
import { APPROVE_ACTION, CANCEL_ACTION, REJECT_ACTION } from '../../src/slack/approvals/blocks/message.js';
import { DEPOSIT_VIEW } from '../../src/slack/deposits/blocks.js';
import { TX_PAGE_ACTION } from '../../src/slack/reads/blocks.js';
import {
  ANY_CHARACTER,
  assertFuzz,
  FUZZ_TIMEOUT_MS,
  type FuzzBot,
  jsonValue,
  OBJECT_MEMBER_NAMES,
  problemWithAnswer,
  runs,
  text,
} from '../support/fuzz.js';
import { ENTERPRISE_IDS, TEAM_IDS } from '../support/fuzz-inputs.js';
import { harnessTest as test } from '../support/harness-fixtures.js';
import { newTriggerId, postSigned } from '../support/slack-requests.js';

const JSON_TYPE = 'application/json';
const FORM_TYPE = 'application/x-www-form-urlencoded';

async function send(bot: FuzzBot, body: string, contentType: string): Promise<void> {
  const answer = await postSigned(bot.h.sender, body, { contentType });
  expect(
    problemWithAnswer(answer),
    `${answer.status} ${answer.body} for ${body.slice(0, 300)}`,
  ).toBeUndefined();
}

const anyJson = jsonValue(4);
/** An id as Slack sends it, or one named like a member of every object (`valueOf`, `__proto__` …). */
const id = (...valid: string[]) => fc.constantFrom(...valid, ...OBJECT_MEMBER_NAMES);
/** Any JSON but a string: where the bot routes on a string id, a string it does not know would go unanswered. */
const notText = anyJson.filter((v) => typeof v !== 'string');

/** The field as Slack sends it (mostly), another JSON value, or missing. */
const field = <T>(valid: fc.Arbitrary<T>, other: fc.Arbitrary<unknown> = anyJson) =>
  fc.oneof(
    { weight: 8, arbitrary: valid as fc.Arbitrary<unknown> },
    { weight: 1, arbitrary: other },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );

/** A workspace id: the bot's own (T1), another's, empty, or named like Object's members. */
const teamId = field(
  fc.oneof(
    { weight: 4, arbitrary: fc.constant('T1') },
    { weight: 1, arbitrary: fc.constantFrom(...TEAM_IDS) },
  ),
);
/** Mostly none (the bot's workspace is on no Grid), else any organisation. */
const enterpriseId = fc.oneof(
  { weight: 4, arbitrary: fc.constant(undefined) },
  { weight: 1, arbitrary: field(fc.constantFrom(...ENTERPRISE_IDS)) },
);
const user = field(
  fc.record({
    id: field(id('UREQ', 'UAPPROVERA', 'UAPPROVERB')),
    team_id: teamId,
  }),
);
const team = field(fc.record({ id: teamId, domain: field(fc.constant('treasury')) }));
const enterprise = fc.oneof(
  { weight: 4, arbitrary: fc.constant(null) },
  { weight: 1, arbitrary: field(fc.record({ id: field(fc.constantFrom(...ENTERPRISE_IDS)) })) },
);
const channel = field(fc.record({ id: field(id('CAPPROVALS')) }));

const buttonClick = (bot: FuzzBot) =>
  fc.record({
    type: fc.constant('block_actions'),
    user,
    team,
    enterprise,
    channel,
    api_app_id: field(fc.constant('A1')),
    trigger_id: field(fc.constant('').map(() => newTriggerId())),
    response_url: field(fc.constant('').map(() => bot.h.slack.responseUrl('click'))),
    container: field(
      fc.record({
        type: field(fc.constant('message')),
        message_ts: field(fc.constant('1700000000.000100')),
        channel_id: field(id('CAPPROVALS')),
      }),
    ),
    message: field(
      fc.record({ ts: field(fc.constant('1700000000.000100')), type: field(fc.constant('message')) }),
    ),
    actions: field(
      fc.array(
        fc.record({
          action_id: field(
            fc.constantFrom(
              APPROVE_ACTION,
              REJECT_ACTION,
              CANCEL_ACTION,
              `${TX_PAGE_ACTION}.next`,
              `${TX_PAGE_ACTION}.previous`,
            ),
            notText,
          ),
          block_id: field(id('approval.actions')),
          type: field(fc.constant('button')),
          value: field(fc.oneof(id('AR-1A2B3C4D5E:1', '2', '0'), text())),
          action_ts: field(fc.constant('1700000000.1')),
        }),
        { minLength: 1, maxLength: 2 },
      ),
      fc.oneof(notText, fc.constant([])),
    ),
  });

const optionsRequest = fc.record({
  type: fc.constant('block_suggestion'),
  user,
  team,
  enterprise,
  api_app_id: field(fc.constant('A1')),
  action_id: field(fc.constantFrom(REDEEM.bank, SETTLEMENT.bank), notText),
  block_id: field(id(REDEEM.bank, SETTLEMENT.bank)),
  value: field(text({ unit: ANY_CHARACTER, maxLength: 30 })),
});

const submission = fc.record({
  type: fc.constant('view_submission'),
  user,
  team,
  enterprise,
  api_app_id: field(fc.constant('A1')),
  trigger_id: field(fc.constant('').map(() => newTriggerId())),
  view: field(
    fc.record({
      id: field(fc.constant('').map(() => `V${Math.random().toString(36).slice(2)}`)),
      type: field(fc.constant('modal')),
      callback_id: field(fc.constant(DEPOSIT_VIEW), notText),
      private_metadata: field(text()),
      hash: field(fc.constant('h')),
      state: field(fc.record({ values: field(fc.dictionary(text(), fc.dictionary(text(), anyJson))) })),
      app_installed_team_id: field(id('T1')),
    }),
  ),
  response_urls: field(fc.array(fc.record({ response_url: field(fc.constant('http://127.0.0.1:9/x')) }))),
});

const event = fc.record({
  type: fc.constant('event_callback'),
  team_id: teamId,
  enterprise_id: enterpriseId,
  api_app_id: field(fc.constant('A1')),
  event: field(
    fc.record({
      type: field(fc.constantFrom('app_home_opened', 'message', 'reaction_added')),
      user: field(fc.oneof(id('UREQ'), fc.record({ id: field(id('UREQ')) }))),
      channel: field(fc.oneof(id('C1'), fc.record({ id: field(id('C1')) }))),
      item: field(fc.record({ channel: field(id('C1')) })),
      subteam: field(fc.record({ created_by: field(id('UREQ')) })),
      ts: field(fc.constant('1700000000.000100')),
    }),
  ),
  authorizations: field(fc.array(fc.record({ team_id: field(id('T1')), enterprise_id: anyJson }))),
});

const urlVerification = fc.record({
  type: fc.constant('url_verification'),
  challenge: field(text()),
  token: field(text()),
});

/** Drops the keys whose value came out `undefined` ("missing"), as JSON.stringify does. */
const json = (value: unknown) => JSON.stringify(value);
// Text as it is, anything else as JSON: String() throws on an object whose `toString` is no function.
const formValue = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));
const asForm = (record: Record<string, unknown>) => {
  const form = new URLSearchParams();
  for (const [key, value] of Object.entries(record)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const item of value) form.append(key, formValue(item));
    else form.append(key, formValue(value));
  }
  return form.toString();
};

const slashCommand = (bot: FuzzBot) =>
  fc
    .record({
      // A form field is always text; a command the app does not serve is Slack's configuration, not input.
      command: field(fc.constant('/cngn'), fc.constant(undefined)),
      text: field(
        fc.constantFrom('help', 'tx', 'networks', 'pending', 'nonsense', ...OBJECT_MEMBER_NAMES),
        fc.array(text(), { minLength: 2 }),
      ),
      user_id: field(id('UREQ')),
      channel_id: field(id('CCMD')),
      team_id: teamId,
      enterprise_id: enterpriseId,
      trigger_id: field(fc.constant('').map(() => newTriggerId())),
      response_url: field(fc.constant('').map(() => bot.h.slack.responseUrl('fuzz'))),
    })
    .map(asForm);

describe('fuzzed bodies to /slack/events', { timeout: FUZZ_TIMEOUT_MS }, () => {
  test('answers any JSON body, any form and any payload', async ({ fuzzBot: bot }) => {
    const body = fc.oneof(
      anyJson.map((v) => [json(v), JSON_TYPE] as const),
      text({ unit: ANY_CHARACTER, maxLength: 100 }).map((s) => [s, JSON_TYPE] as const),
      fc.dictionary(text(), fc.oneof(text(), fc.array(text()))).map((d) => [asForm(d), FORM_TYPE] as const),
      anyJson.map((v) => [asForm({ payload: json(v) }), FORM_TYPE] as const),
      text().map((s) => [asForm({ payload: s }), FORM_TYPE] as const),
      fc
        .constantFrom('ssl_check=1&token=x', 'ssl_check=0', 'ssl_check=1&ssl_check=1')
        .map((s) => [s, FORM_TYPE] as const),
    );
    await assertFuzz(
      fc.asyncProperty(body, ([raw, type]) => send(bot, raw, type)),
      runs(1_200),
    );
  });

  test("answers Slack's own envelopes with any field of any type, or missing", async ({ fuzzBot: bot }) => {
    const body = fc.oneof(
      buttonClick(bot).map((b) => [asForm({ payload: json(b) }), FORM_TYPE] as const),
      optionsRequest.map((b) => [asForm({ payload: json(b) }), FORM_TYPE] as const),
      submission.map((b) => [asForm({ payload: json(b) }), FORM_TYPE] as const),
      slashCommand(bot).map((b) => [b, FORM_TYPE] as const),
      event.map((b) => [json(b), JSON_TYPE] as const),
      urlVerification.map((b) => [json(b), JSON_TYPE] as const),
    );
    await assertFuzz(
      fc.asyncProperty(body, ([raw, type]) => send(bot, raw, type)),
      runs(1_200),
    );
  });

  test('left no listener failing and nothing unhandled, and the bot still answers', async ({
    fuzzBot: bot,
  }) => {
    expect(await bot.healthz()).toBe(200);
    await bot.h.bot.stop();
    expect(bot.listenerFailures()).toEqual([]);
    expect(bot.faults).toEqual([]);
  });
});
