// Property-based: every modal the bot registers, submitted (signed, through the real bot) with values
// of any JSON type in any of its fields, private metadata of any kind, or a state that is not even an
// object. Every submission is acknowledged with a valid answer (or refused with a clear 400), no
// listener fails, nothing goes unhandled, and the bot still answers /healthz.
import fc from 'fast-check';
import { describe, expect } from 'vitest';
import { DEAD_LETTER_CHANNEL, DEAD_LETTER_VIEW } from '../../src/slack/alerts/dead-letter-blocks.js';
import { type BoundModal, bindingKey } from '../../src/slack/approvals/actions/review-binding.js';
import {
  REDEEM,
  REDEEM_VIEW,
  SETTLEMENT,
  SETTLEMENT_VIEW,
} from '../../src/slack/approvals/blocks/bank-modal.js';
import {
  BRIDGE,
  BRIDGE_VIEW,
  REJECT,
  REJECT_VIEW,
  WHITELIST,
  WHITELIST_VIEW,
  WITHDRAW,
  WITHDRAW_VIEW,
} from '../../src/slack/approvals/blocks/modals.js';
import { DEPOSIT, DEPOSIT_VIEW, QUOTE, QUOTE_VIEW } from '../../src/slack/deposits/blocks.js';
import { networksMetadata, toNetworkChoices } from '../../src/slack/ui/modal.js';
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
import { fileFuzzBot, harnessTest } from '../support/harness-fixtures.js';
import { interaction, newTriggerId } from '../support/slack-requests.js';

/** What the forms offer to choose from, as the service lists it: read once from the file's bot. */
interface ServiceLists {
  networkIds: string[];
  bankValues: string[];
  /** The private metadata a form with a network choice carries. */
  metadata: string;
}

const test = harnessTest
  // The fuzzing user is an approver, so every form is reached past the access gate.
  .extend('fuzzBot', { scope: 'file' }, fileFuzzBot({ config: { approvers: ['UFUZZ'] } }))
  .extend('lists', { scope: 'file' }, async ({ fuzzBot: bot }): Promise<ServiceLists> => {
    const networks = await bot.h.bot.client.getNetworks();
    return {
      networkIds: networks.map((n) => n.id),
      metadata: JSON.stringify(networksMetadata(toNetworkChoices(networks))),
      bankValues: (await bot.h.bot.client.getBanks()).slice(0, 5).map((b) => `${b.code}|${b.name}`),
    };
  });

const anyJson = jsonValue(3);
const ADDRESS = '0x52908400098527886E0F7030069857D2E4169EE7';
const someText = text({ unit: ANY_CHARACTER, maxLength: 60 });

/** Mostly a value the form accepts (so submissions get through to filing), else any text or JSON. */
const textElement = (...valid: string[]) =>
  fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...valid).map((value) => ({ type: 'plain_text_input', value })) },
    { weight: 2, arbitrary: someText.map((value) => ({ type: 'plain_text_input', value })) },
    { weight: 2, arbitrary: anyJson.map((value) => ({ type: 'plain_text_input', value })) },
    { weight: 1, arbitrary: anyJson },
  );
const amount = textElement('1500', '0.01', '1,500.50', '100000', '2500');
const address = textElement(ADDRESS, ADDRESS.toLowerCase());
const account = textElement('0123456789', '0000000000');

const selectElement = (list: string[]) =>
  fc.oneof(
    {
      weight: 6,
      arbitrary: fc.nat().map((i) => {
        const value = list[i % list.length] ?? 'none';
        return {
          type: 'static_select',
          selected_option: { value, text: { type: 'plain_text', text: value } },
        };
      }),
    },
    {
      // A choice named like a member of every object (`constructor`, `__proto__` …).
      weight: 1,
      arbitrary: fc.constantFrom(...OBJECT_MEMBER_NAMES).map((value) => ({
        type: 'static_select',
        selected_option: { value, text: { type: 'plain_text', text: value } },
      })),
    },
    { weight: 1, arbitrary: anyJson.map((value) => ({ type: 'static_select', selected_option: { value } })) },
    {
      weight: 1,
      arbitrary: anyJson.map((selected) => ({ type: 'static_select', selected_option: selected })),
    },
    { weight: 1, arbitrary: anyJson },
  );

const checkboxElement = fc.oneof(
  fc.constant({ type: 'checkboxes', selected_options: [] }),
  fc.constant({ type: 'checkboxes', selected_options: [{ value: 'save' }] }),
  anyJson.map((selected) => ({ type: 'checkboxes', selected_options: selected })),
  anyJson,
);

const conversationElement = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.constant({ type: 'conversations_select', selected_conversation: 'CREPOST' }),
  },
  { weight: 1, arbitrary: fc.constant({ type: 'conversations_select' }) },
  {
    weight: 2,
    arbitrary: anyJson.map((selected) => ({ type: 'conversations_select', selected_conversation: selected })),
  },
  { weight: 1, arbitrary: anyJson },
);

type Field = [id: string, element: fc.Arbitrary<unknown>];
const whitelisted = (lists: ServiceLists) => lists.networkIds.map((id) => `${id}|${ADDRESS}`);

/**
 * A form that decides on a request it showed (`bound`) is submitted with a record of what it showed,
 * as if opened from a request message: the fuzz reaches the decision instead of waiting out the wait
 * for a record that never comes (review-binding.ts), half a second per case.
 */
const FORMS: Array<{
  name: string;
  callbackId: string;
  fields: (lists: ServiceLists) => Field[];
  bound?: BoundModal;
}> = [
  {
    name: 'withdraw',
    callbackId: WITHDRAW_VIEW,
    fields: (lists) => [
      [WITHDRAW.amount, amount],
      [WITHDRAW.network, selectElement(lists.networkIds)],
      [WITHDRAW.whitelisted, selectElement(whitelisted(lists))],
      [WITHDRAW.address, address],
      [WITHDRAW.save, checkboxElement],
    ],
  },
  {
    name: 'bridge',
    callbackId: BRIDGE_VIEW,
    fields: (lists) => [
      [BRIDGE.amount, amount],
      [BRIDGE.origin, selectElement(lists.networkIds)],
      [BRIDGE.destination, selectElement(lists.networkIds)],
      [BRIDGE.address, address],
      [BRIDGE.sender, address],
    ],
  },
  {
    name: 'whitelist add',
    callbackId: WHITELIST_VIEW,
    fields: (lists) => [
      [WHITELIST.network, selectElement(lists.networkIds)],
      [WHITELIST.address, address],
    ],
  },
  {
    name: 'redeem',
    callbackId: REDEEM_VIEW,
    fields: (lists) => [
      [REDEEM.amount, amount],
      [REDEEM.bank, selectElement(lists.bankValues)],
      [REDEEM.account, account],
    ],
  },
  {
    name: 'settlement',
    callbackId: SETTLEMENT_VIEW,
    fields: (lists) => [
      [SETTLEMENT.bank, selectElement(lists.bankValues)],
      [SETTLEMENT.account, account],
    ],
  },
  {
    name: 'reject',
    callbackId: REJECT_VIEW,
    bound: 'reject',
    fields: () => [[REJECT.reason, textElement('not paid yet', 'wrong address', 'duplicate')]],
  },
  {
    name: 'deposit',
    callbackId: DEPOSIT_VIEW,
    fields: () => [
      [DEPOSIT.amount, amount],
      [DEPOSIT.email, textElement('ada@example.com', 'payer@example.org')],
      [DEPOSIT.customerName, textElement('Ada Obi', '')],
      [DEPOSIT.accountName, textElement('Ada & Sons Ltd', '')],
      [DEPOSIT.narration, textElement('invoice 42', '')],
    ],
  },
  {
    name: 'quote',
    callbackId: QUOTE_VIEW,
    fields: (lists) => [
      [QUOTE.amount, amount],
      [QUOTE.origin, selectElement(lists.networkIds)],
      [QUOTE.destination, selectElement(lists.networkIds)],
      [QUOTE.address, address],
    ],
  },
  {
    name: 'dead-letter re-post',
    callbackId: DEAD_LETTER_VIEW,
    fields: () => [[DEAD_LETTER_CHANNEL, conversationElement]],
  },
];

/** Each field present with any element, or missing; now and then the whole state replaced. */
function stateValues(fields: Field[]): fc.Arbitrary<unknown> {
  const present = fc.tuple(
    ...fields.map(([id, element]) =>
      fc.option(element, { nil: undefined, freq: 10 }).map((value) => [id, value] as const),
    ),
  );
  const values = present.map((pairs) => {
    const out: Record<string, unknown> = {};
    for (const [id, value] of pairs) if (value !== undefined) out[id] = { [id]: value };
    return out;
  });
  return fc.oneof({ weight: 12, arbitrary: values }, { weight: 1, arbitrary: anyJson });
}

const privateMetadata = (metadata: string) =>
  fc.oneof(
    { weight: 12, arbitrary: fc.constant(() => metadata) },
    { weight: 1, arbitrary: text().map((s) => () => s) },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(...OBJECT_MEMBER_NAMES)
        .map((name) => () => JSON.stringify({ networks: [name], families: { [name]: 'solana' } })),
    },
    { weight: 1, arbitrary: anyJson.map((v) => () => JSON.stringify(v)) },
    {
      weight: 1,
      arbitrary: text().map((id) => () => JSON.stringify({ id, channel: 'CAPPROVALS' })),
    },
  );

/** Record the modal as showing the request its metadata names (any id it names, or one it does not). */
async function bindView(bot: FuzzBot, viewId: string, modal: BoundModal, metadata: string): Promise<void> {
  let id: unknown;
  try {
    id = (JSON.parse(metadata) as { id?: unknown } | null)?.id;
  } catch {
    // Not JSON: the record names a request the metadata cannot.
  }
  const shown = {
    id: typeof id === 'string' && id.length > 0 ? id.slice(0, 60) : 'R-shown',
    round: 0,
    figures: '0'.repeat(64),
  };
  await bot.h.store.set(bindingKey(viewId), { modal, shown: [shown] }, 60_000);
}

describe('fuzzed modal submissions', { timeout: FUZZ_TIMEOUT_MS }, () => {
  test.for(FORMS)(
    'acknowledges every $name submission, whatever its values',
    async (form, { fuzzBot: bot, lists }) => {
      await assertFuzz(
        fc.asyncProperty(
          stateValues(form.fields(lists)),
          privateMetadata(lists.metadata),
          async (values, meta) => {
            const viewId = `V${Math.random().toString(36).slice(2)}`;
            const metadata = meta();
            if (form.bound) await bindView(bot, viewId, form.bound, metadata);
            const answer = await interaction(bot.h.sender, {
              type: 'view_submission',
              team: { id: 'T1', domain: 'treasury' },
              user: { id: 'UFUZZ', username: 'fuzz', team_id: 'T1' },
              api_app_id: 'A1',
              trigger_id: newTriggerId(),
              view: {
                id: viewId,
                type: 'modal',
                callback_id: form.callbackId,
                private_metadata: metadata,
                hash: 'h',
                state: { values },
              },
            });
            expect(problemWithAnswer(answer), answer.body).toBeUndefined();
            // A state that is an object always reaches the form; only a non-object state is refused.
            if (typeof values === 'object' && values !== null && !Array.isArray(values)) {
              expect(answer.status).toBe(200);
            }
          },
        ),
        runs(250),
      );
    },
  );

  test('left no listener failing and nothing unhandled, and the bot still answers', async ({
    fuzzBot: bot,
  }) => {
    expect(await bot.healthz()).toBe(200);
    // The valid ones got through to filing and to the service (the fuzz reached past the checks).
    expect(bot.h.slack.callsTo('views.update').length).toBeGreaterThan(0);
    await bot.h.bot.stop(); // lets work after the acks finish
    expect(bot.listenerFailures()).toEqual([]);
    expect(bot.faults).toEqual([]);
  });
});
