// Builders of alerts, every outside value set to one text: webhook alerts, digests, where an alert
// went, dead letters, and the fallback when an alert builder throws.
import { webhookEventSchema } from '../../../src/cngn/schemas.js';
import { escapeMrkdwn } from '../../../src/format/mrkdwn.js';
import {
  ALL_LETTERS,
  deadLetterLine,
  deadLettersMessage,
  repostModal,
  repostSummary,
} from '../../../src/slack/alerts/dead-letter-blocks.js';
import { alertDigestMessage, alertDigestPlaceholder } from '../../../src/slack/alerts/digest-blocks.js';
import { webhookMessage } from '../../../src/slack/alerts/message-blocks.js';
import { alertWhereaboutsBlock } from '../../../src/slack/reads/alert-whereabouts.js';
import { txFromAlertsMessage } from '../../../src/slack/reads/tx-alerts.js';
import { alertFor } from '../../../src/webhooks/alert.js';
import { type Add, everyCombination, fakeExplorers, PERMALINK, receiversOf } from './inputs.js';
import { NOW } from './support.js';

/** Dead letters: each line, the list, the re-post modals and summary. */
export function deadLetterBuilders(text: string, add: Add): void {
  const letters = ['', text, 1500].map((amount, i) => ({
    id: `5f0c2b9e-7a1d-4c3e-9b8f-00000000000${i}`, // the bot's own id
    channel: text,
    reason: text,
    attempts: 3,
    at: '2026-11-23T07:00:00.000Z',
    event: webhookEventSchema.parse({ event: text, data: { trx_ref: text, transactionId: text, amount } }),
  }));
  for (const letter of letters) {
    add('dead letter line', deadLetterLine(letter));
    add('re-post modal', repostModal(letter, 1, 'LIVE'));
  }
  add('dead letters', deadLettersMessage(letters, 'LIVE'));
  add('re-post all modal', repostModal(ALL_LETTERS, letters.length, 'LIVE'));
  add('re-post summary', repostSummary(letters.map(deadLetterLine)));
}

/** The alert of every webhook event, from a webhook or the reconciler, readable or not. */
export function webhookAlertBuilders(text: string, add: Add): void {
  const receivers = receiversOf(text);
  const events = [
    'deposit.received',
    'deposit.completed',
    'withdrawal.completed',
    'bridge.completed',
    'redemption.completed',
    'transaction.failed',
    text,
  ];
  const types = ['crypto_deposit', 'fiat_redeem', 'swap', text];
  for (const explorer of fakeExplorers(text)) {
    const every = everyCombination(explorer, text);
    for (const [e, event] of events.entries()) {
      for (const [r, receiver] of receivers.entries()) {
        for (const [t, type] of types.entries()) {
          // Otherwise one receiver per event and type, each receiver in turn.
          if (!every && r !== (e + t) % receivers.length) continue;
          const parsed = webhookEventSchema.parse({
            event,
            data: {
              transactionId: text,
              trx_ref: text,
              status: text,
              trx_type: type,
              network: text,
              base_trx_hash: text,
              extl_trx_hash: `0x${'2'.repeat(64)}`,
              explorer_link: explorer,
              amount: text,
              asset_symbol: text,
              receiver,
              reason: text,
              occurredAt: text,
            },
            timestamp: text,
          });
          for (const origin of ['webhook', 'reconciler'] as const) {
            add(
              `alert ${event} ${type}`,
              webhookMessage({ event: parsed, origin, environment: 'live', bankName: text }),
            );
          }
          add(
            `alert ${event} unreadable`,
            webhookMessage({ event: parsed, origin: 'webhook', environment: 'live', unreadable: [text] }),
          );
          add(
            `alert ${event} stale`,
            webhookMessage({ event: parsed, origin: 'webhook', environment: 'live', stale: true }),
          );
        }
      }
    }
  }
}

/** Where the alerts about a transaction went (/cngn tx), and digests of several alerts. */
export function alertLookupBuilders(text: string, add: Add): void {
  const recorded = {
    at: text,
    amount: text,
    asset: text,
    status: text,
    reference: text,
    transactionId: text,
    network: text,
    reason: text,
  };
  const whereabouts = [
    { event: text, state: 'posted' as const, channel: text, ts: text, recorded },
    { event: text, state: 'posted' as const, channel: 'CALERTS', permalink: PERMALINK, digestPart: 2 },
    { event: text, state: 'waiting' as const },
    { event: text, state: 'set-aside' as const },
  ];
  add('tx from alerts', txFromAlertsMessage(text, escapeMrkdwn(text), whereabouts));
  add('alert whereabouts', { blocks: [alertWhereaboutsBlock(whereabouts)] });
  const digestAlerts = ['deposit.completed', 'withdrawal.completed', text].map((event) => ({
    event: webhookEventSchema.parse({
      event,
      data: {
        trx_ref: text,
        transactionId: text,
        amount: text,
        network: text,
        base_trx_hash: text,
        explorer_link: text,
      },
    }),
    origin: 'reconciler' as const,
    environment: 'live' as const,
  }));
  const digest = { alerts: digestAlerts, environment: 'live' as const, part: 2, more: true };
  add('alert digest', alertDigestMessage(digest));
  add('alert digest placeholder', alertDigestPlaceholder(digest));
}

/** What the alert for an event is when its builder throws: the entry's key fields as text. */
export async function fallbackAlert(text: string) {
  const event = webhookEventSchema.parse({
    event: text,
    data: { trx_ref: text, amount: text, status: text },
  });
  return alertFor(
    { id: 'e1', event, origin: 'webhook', environment: 'live', receivedAt: NOW.toISOString() } as never,
    {
      render: () => {
        throw new Error('builder bug');
      },
      log: { error: () => {}, warn: () => {}, info: () => {} } as never,
    },
  );
}
