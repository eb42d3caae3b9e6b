// Sender verification as the service documents it: `X-cNGN-Signature: sha256=<hex>` (bare hex accepted),
// the HMAC-SHA256 of the raw body bytes under the signing secret, compared in constant time.
import { createHmac, timingSafeEqual } from 'node:crypto';

export function signatureFor(rawBody: Buffer | string, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(rawBody).digest('hex')}`;
}

function verifySignature(
  rawBody: Buffer,
  header: string | string[] | undefined,
  secret: string | undefined,
): boolean {
  if (!secret || typeof header !== 'string') return false;
  const hex = header.trim().replace(/^sha256=/i, '');
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) return false;
  const expected = createHmac('sha256', secret).update(rawBody).digest();
  return timingSafeEqual(Buffer.from(hex, 'hex'), expected);
}

/** Which of the configured secrets signed a delivery during a rotation (docs/rotation.md). */
export type VerifiedBy = 'current' | 'previous';

/**
 * The secret a delivery's signature verifies with: the current one, or else the previous one while it
 * is set; undefined when neither does. Both are checked every time, each in constant time.
 */
export function verifyWithEither(
  rawBody: Buffer,
  header: string | string[] | undefined,
  secrets: { current: string | undefined; previous?: string | undefined },
): VerifiedBy | undefined {
  const current = verifySignature(rawBody, header, secrets.current);
  const previous = verifySignature(rawBody, header, secrets.previous);
  if (current) return 'current';
  return previous ? 'previous' : undefined;
}
