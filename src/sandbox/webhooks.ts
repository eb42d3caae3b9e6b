// Webhook deliveries as the service makes them: `{event, data, timestamp}`, signed
// `X-cNGN-Signature: sha256=<hex HMAC of the raw body>`, sent once with a 10 s timeout, never retried.
import { createHmac } from 'node:crypto';
import type { TransactionRecord, WebhookEventName } from './types.js';

const WEBHOOK_TIMEOUT_MS = 10_000;
const CALLBACK_TIMEOUT_MS = 4_500;

export interface WebhookDelivery {
  event: string;
  body: string;
  status: number | 'error';
}

export function signBody(body: string, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`;
}

/** `receiver` is a string in events: `bankCode:accountNumber:accountName`, an address, or the business id. */
function receiverText(tx: TransactionRecord): string {
  const receiver = tx.receiver;
  if ('bank' in receiver) return `${receiver.bank.code}:${receiver.accountNumber}:${receiver.accountName}`;
  if (tx.trx_type === 'fiat_buy') return tx.businessId;
  if (tx.trx_type === 'crypto_deposit') return 'Wrap CBDC';
  return receiver.address;
}

export function eventData(tx: TransactionRecord, occurredAt: string, reason?: string) {
  return {
    transactionId: tx.id,
    trx_ref: tx.trx_ref,
    businessId: tx.businessId,
    initiatorId: tx.initiatorId,
    status: tx.status,
    trx_type: tx.trx_type,
    network: tx.network,
    base_trx_hash: tx.base_trx_hash,
    extl_trx_hash: tx.extl_trx_hash,
    explorer_link: tx.explorer_link,
    amount: tx.amount,
    asset_symbol: tx.asset_symbol,
    receiver: receiverText(tx),
    ...(reason ? { reason } : {}),
    occurredAt,
  };
}

export class WebhookSender {
  readonly deliveries: WebhookDelivery[] = [];
  private readonly inFlight = new Set<AbortController>();

  /** When true, `data` goes out sealed like response data (some deliveries arrive that way). */
  sealData = false;

  constructor(
    public url: string | undefined,
    readonly secret: string,
    private readonly seal: (json: string) => string,
    private readonly log: (line: string) => void,
  ) {}

  /** Deliver once; resolves when the receiver answered, failed or timed out. Never throws. */
  async send(event: WebhookEventName, data: Record<string, unknown>, timestamp: string): Promise<void> {
    const url = this.url;
    if (!url) {
      this.log(`webhook ${event} not sent: no webhook URL set`);
      return;
    }
    const payload = this.sealData ? this.seal(JSON.stringify(data)) : data;
    const body = JSON.stringify({ event, data: payload, timestamp });
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (this.secret) headers['x-cngn-signature'] = signBody(body, this.secret);
    const status = await this.post(url, body, headers, WEBHOOK_TIMEOUT_MS);
    this.deliveries.push({ event, body, status });
    this.log(`webhook ${event} → ${status}`);
  }

  /** The bridge completion callback: unsigned, once, 4.5 s. */
  async callback(url: string, payload: Record<string, unknown>): Promise<number | 'error'> {
    const status = await this.post(
      url,
      JSON.stringify(payload),
      { 'content-type': 'application/json' },
      CALLBACK_TIMEOUT_MS,
    );
    this.log(`bridge callback → ${status}`);
    return status;
  }

  private async post(
    url: string,
    body: string,
    headers: Record<string, string>,
    timeoutMs: number,
  ): Promise<number | 'error'> {
    const controller = new AbortController();
    this.inFlight.add(controller);
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    try {
      const response = await fetch(url, { method: 'POST', body, headers, signal: controller.signal });
      await response.arrayBuffer().catch(() => undefined);
      return response.status;
    } catch {
      return 'error';
    } finally {
      clearTimeout(timer);
      this.inFlight.delete(controller);
    }
  }

  abortAll(): void {
    for (const controller of this.inFlight) controller.abort();
  }
}
