// Credentials of the service: the Ed25519 private key, the environment the API key
// selects, and a non-reversible id of the key for store keys (the key itself is never stored or logged).
import { createHash } from 'node:crypto';
import type { CngnEnvironment } from './api.js';
import { CngnErrorCode } from './errors.js';
import { KeyFormatError, parseOpenSshPrivateKey } from './wire.js';

export class CredentialsError extends Error {
  override name = 'CredentialsError';
  readonly code = CngnErrorCode.Credentials;
}

/**
 * The OpenSSH private key (its text, from `CNGN_PRIVATE_KEY` or the file `CNGN_PRIVATE_KEY_FILE` names),
 * checked to be an unencrypted Ed25519 key. `origin` names where the text came from in a refusal.
 * Returns the key text, ready for `createCngnClient`.
 */
export function loadPrivateKey(source: string | undefined, origin = 'CNGN_PRIVATE_KEY'): string {
  if (!source?.trim()) {
    throw new CredentialsError(
      'CNGN_PRIVATE_KEY: required with CNGN_API_KEY — set CNGN_PRIVATE_KEY (OpenSSH text) or CNGN_PRIVATE_KEY_FILE (path to it)',
    );
  }
  // Keys pasted into one-line env vars often carry literal "\n" instead of line breaks.
  const text = source.includes('\n') ? source : source.replace(/\\n/g, '\n');
  try {
    parseOpenSshPrivateKey(text);
  } catch (error) {
    if (error instanceof KeyFormatError) throw new CredentialsError(`${origin}: ${error.message}`);
    throw error;
  }
  return text;
}

/** `cngn_test_…` → test, `cngn_live_…` → live; anything else is refused before any call is made. */
export function environmentFromKey(apiKey: string): Exclude<CngnEnvironment, 'sandbox'> {
  if (apiKey.startsWith('cngn_test_')) return 'test';
  if (apiKey.startsWith('cngn_live_')) return 'live';
  throw new CredentialsError('CNGN_API_KEY must start with cngn_test_ or cngn_live_');
}

/** A short, non-reversible id of an API key, for store keys shared by replicas using that key. */
export function keyId(apiKey: string): string {
  return createHash('sha256').update(apiKey, 'utf8').digest('hex').slice(0, 16);
}
