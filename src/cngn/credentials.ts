// Credentials of the service: the Ed25519 private key (text or file), the environment the API key
// selects, and a non-reversible id of the key for store keys (the key itself is never stored or logged).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { CngnEnvironment } from './api.js';
import { KeyFormatError, parseOpenSshPrivateKey } from './wire.js';

export class CredentialsError extends Error {
  override name = 'CredentialsError';
}

/**
 * The OpenSSH private key from `CNGN_PRIVATE_KEY` (text) or `CNGN_PRIVATE_KEY_FILE` (path), checked
 * to be an unencrypted Ed25519 key. Returns the key text, ready for `createCngnClient`.
 */
export function loadPrivateKey(source: { text?: string; file?: string }): string {
  let text: string;
  let origin: string;
  if (source.text?.trim()) {
    // Keys pasted into one-line env vars often carry literal "\n" instead of line breaks.
    text = source.text.includes('\n') ? source.text : source.text.replace(/\\n/g, '\n');
    origin = 'CNGN_PRIVATE_KEY';
  } else if (source.file?.trim()) {
    origin = `CNGN_PRIVATE_KEY_FILE (${source.file})`;
    try {
      text = readFileSync(source.file, 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
      throw new CredentialsError(`${origin} cannot be read (${code})`);
    }
  } else {
    throw new CredentialsError(
      'No private key: set CNGN_PRIVATE_KEY (OpenSSH text) or CNGN_PRIVATE_KEY_FILE (path to it)',
    );
  }
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
