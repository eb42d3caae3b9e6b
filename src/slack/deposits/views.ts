// Submissions of the deposit and quote modals: validate inline with the service's rules, ack with a
// "working" view, then call the service and show the answer in the same modal.
import type { App, ViewSubmitAction } from '@slack/bolt';
import { z } from 'zod';
import type { CngnApi } from '../../cngn/api.js';
import { environmentMarker } from '../../format/display.js';
import { amountReason, Money } from '../../format/money.js';
import { checkWalletAddress, familyOf } from '../../format/wallet-address.js';
import type { Logger } from '../../log.js';
import { describeError } from '../runtime/errors.js';
import { afterAck, type InFlight } from '../runtime/in-flight.js';
import { noticeView } from '../ui/modal.js';
import {
  type Parsed,
  parseSubmission,
  readMetadata,
  readSelect,
  readText,
  type ViewValues,
} from '../ui/view-values.js';
import {
  DEPOSIT,
  DEPOSIT_VIEW,
  depositResultView,
  QUOTE,
  QUOTE_VIEW,
  type QuoteMetadata,
  quoteResultView,
} from './blocks.js';

export interface ReadViewDeps {
  api: CngnApi;
  logger: Logger;
  now: () => Date;
  inFlight?: InFlight;
}

function amountAtLeast(
  text: string,
  minimum: string,
  errors: Record<string, string>,
  id: string,
): Money | undefined {
  try {
    const amount = Money.parse(text);
    amount.toWireNumber();
    if (amount.compare(Money.parse(minimum)) < 0) {
      errors[id] = `Amount: must be at least ₦${minimum}`;
      return undefined;
    }
    return amount;
  } catch (error) {
    errors[id] = `Amount: ${amountReason(error)}`;
    return undefined;
  }
}

const emailSchema = z.email();

interface DepositInput {
  amount: Money;
  email: string;
  customerName?: string;
  accountName?: string;
  narration?: string;
}

function parseDeposit(values: ViewValues): Parsed<DepositInput> {
  const errors: Record<string, string> = {};
  const amount = amountAtLeast(readText(values, DEPOSIT.amount), '100', errors, DEPOSIT.amount);
  const email = readText(values, DEPOSIT.email);
  if (!emailSchema.safeParse(email).success)
    errors[DEPOSIT.email] = 'Customer e-mail: enter a valid e-mail address';
  const customerName = readText(values, DEPOSIT.customerName);
  const accountName = readText(values, DEPOSIT.accountName);
  if (accountName && (accountName.length < 3 || accountName.length > 50)) {
    errors[DEPOSIT.accountName] = 'Account display name: must be 3 to 50 characters';
  }
  const narration = readText(values, DEPOSIT.narration);
  if (narration.length > 100)
    errors[DEPOSIT.narration] = `Narration: at most 100 characters (now ${narration.length})`;
  if (Object.keys(errors).length || !amount) return { ok: false, errors };
  return {
    ok: true,
    value: {
      amount,
      email,
      ...(customerName ? { customerName } : {}),
      ...(accountName ? { accountName } : {}),
      ...(narration ? { narration } : {}),
    },
  };
}

export interface QuoteInput {
  amount: Money;
  originNetworkId: string;
  destinationNetworkId: string;
  destinationAddress: string;
}

/** The quote modal's metadata; anything unreadable offers no network (the form is refused, not guessed). */
export function readQuoteMetadata(text: string | undefined): QuoteMetadata {
  const { networks = [], families = {} } = readMetadata(text);
  return { networks, families };
}

export function parseQuote(values: ViewValues, metadata: QuoteMetadata): Parsed<QuoteInput> {
  const allowedNetworks = metadata.networks;
  const errors: Record<string, string> = {};
  const amount = amountAtLeast(readText(values, QUOTE.amount), '0.01', errors, QUOTE.amount);
  const origin = readSelect(values, QUOTE.origin) ?? '';
  const destination = readSelect(values, QUOTE.destination) ?? '';
  if (!allowedNetworks.includes(origin))
    errors[QUOTE.origin] = 'From network: choose one of the enabled networks';
  if (!allowedNetworks.includes(destination)) {
    errors[QUOTE.destination] = 'To network: choose one of the enabled networks';
  } else if (destination === origin) {
    errors[QUOTE.destination] = 'To network: must differ from the network you bridge from';
  }
  // Checked by the rules of the destination network (EVM unless the network list says otherwise).
  const address = checkWalletAddress(
    familyOf(metadata.families, destination) ?? 'evm',
    readText(values, QUOTE.address),
  );
  if (!address.ok) errors[QUOTE.address] = `Destination address: ${address.reason}`;
  if (Object.keys(errors).length || !amount || !address.ok) return { ok: false, errors };
  return {
    ok: true,
    value: {
      amount,
      originNetworkId: origin,
      destinationNetworkId: destination,
      destinationAddress: address.address,
    },
  };
}

export function registerDepositQuoteViews(app: App, deps: ReadViewDeps): void {
  const label = () => environmentMarker(deps.api.environment);
  const run = (what: string, slackId: string, work: () => Promise<void>) =>
    afterAck(deps.inFlight, work, deps.logger, what, slackId);

  app.view<ViewSubmitAction>(DEPOSIT_VIEW, async ({ ack, body, client }) => {
    const parsed = parseSubmission(body.view, DEPOSIT, parseDeposit);
    if (!parsed.ok) return void (await ack({ response_action: 'errors', errors: parsed.errors }));
    await ack({
      response_action: 'update',
      view: noticeView('One moment', `Creating the deposit account…\n${label()}`),
    });
    const input = parsed.value;
    run('deposit', body.trigger_id, async () => {
      let view: ReturnType<typeof noticeView>;
      try {
        const account = await deps.api.createTemporaryAccount({
          amount: input.amount,
          customer: { email: input.email, ...(input.customerName ? { name: input.customerName } : {}) },
          ...(input.accountName ? { accountName: input.accountName } : {}),
          ...(input.narration ? { narration: input.narration } : {}),
        });
        view = depositResultView(account, deps.now(), label());
      } catch (error) {
        view = noticeView(
          'No account',
          `:warning: ${describeError(error, deps.logger, 'deposit').text}\n${label()}`,
        );
      }
      await client.views.update({ view_id: body.view.id, view });
    });
  });

  app.view<ViewSubmitAction>(QUOTE_VIEW, async ({ ack, body, client }) => {
    const metadata = readQuoteMetadata(body.view.private_metadata);
    const parsed = parseSubmission(body.view, QUOTE, (v) => parseQuote(v, metadata));
    if (!parsed.ok) return void (await ack({ response_action: 'errors', errors: parsed.errors }));
    await ack({
      response_action: 'update',
      view: noticeView('One moment', `Asking the service for a quote…\n${label()}`),
    });
    const input = parsed.value;
    run('quote', body.trigger_id, async () => {
      let view: ReturnType<typeof noticeView>;
      try {
        const [quote, networks] = await Promise.all([deps.api.bridgeQuote(input), deps.api.getNetworks()]);
        const name = (id: string) => networks.find((n) => n.id === id)?.name ?? id;
        view = quoteResultView(
          {
            amount: input.amount.toString(),
            origin: name(input.originNetworkId),
            destination: name(input.destinationNetworkId),
            address: input.destinationAddress,
            quote,
          },
          label(),
        );
      } catch (error) {
        view = noticeView(
          'No quote',
          `:warning: ${describeError(error, deps.logger, 'quote').text}\n${label()}`,
        );
      }
      await client.views.update({ view_id: body.view.id, view });
    });
  });
}
