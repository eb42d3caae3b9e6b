// Loading the business's private key (CNGN_PRIVATE_KEY, or the file CNGN_PRIVATE_KEY_FILE names, read
// by src/config.ts), with a clear error for every way it can be wrong; and the environment the API key
// selects.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { environmentFromKey, keyId, loadPrivateKey } from '../../src/cngn/credentials.js';
import { generateOpenSshKeyPair } from '../../src/cngn/wire.js';

const fixture = (name: string) => readFileSync(new URL(`../fixtures/${name}`, import.meta.url), 'utf8');

describe('loadPrivateKey', () => {
  it('takes the key text, also when its line breaks were flattened to \\n', () => {
    const { privateKey } = generateOpenSshKeyPair();
    expect(loadPrivateKey(privateKey)).toBe(privateKey);
    const flattened = privateKey.replace(/\n/g, '\\n');
    expect(loadPrivateKey(flattened)).toBe(privateKey);
    expect(loadPrivateKey(fixture('test_ed25519').trim())).toContain('BEGIN OPENSSH PRIVATE KEY');
  });

  it('says what to set when none is given', () => {
    expect(() => loadPrivateKey(undefined)).toThrow(/set CNGN_PRIVATE_KEY .* or CNGN_PRIVATE_KEY_FILE/);
    expect(() => loadPrivateKey('  ')).toThrow(/^CNGN_PRIVATE_KEY: required with CNGN_API_KEY/);
  });

  it('refuses text that is not an OpenSSH key, naming its source', () => {
    expect(() => loadPrivateKey('hello')).toThrow(/^CNGN_PRIVATE_KEY: .*not in OpenSSH format/);
    expect(() => loadPrivateKey('hello', 'CNGN_PRIVATE_KEY_FILE (/run/secrets/key)')).toThrow(
      /^CNGN_PRIVATE_KEY_FILE \(\/run\/secrets\/key\): .*not in OpenSSH format/,
    );
  });

  it('refuses a passphrase-protected key', () => {
    // An openssh-key-v1 header claiming aes256-ctr/bcrypt, as ssh-keygen writes with a passphrase.
    const field = (text: string) => {
      const length = Buffer.alloc(4);
      length.writeUInt32BE(Buffer.byteLength(text));
      return Buffer.concat([length, Buffer.from(text)]);
    };
    const body = Buffer.concat([
      Buffer.from('openssh-key-v1\0', 'latin1'),
      field('aes256-ctr'),
      field('bcrypt'),
      field(''),
      Buffer.from([0, 0, 0, 1]),
    ]);
    const text = `-----BEGIN OPENSSH PRIVATE KEY-----\n${body.toString('base64')}\n-----END OPENSSH PRIVATE KEY-----\n`;
    expect(() => loadPrivateKey(text)).toThrow(/passphrase/);
  });
});

describe('environment and key id', () => {
  it('picks the environment from the key prefix', () => {
    expect(environmentFromKey('cngn_test_abc')).toBe('test');
    expect(environmentFromKey('cngn_live_abc')).toBe('live');
    expect(() => environmentFromKey('cngn_abc')).toThrow(/cngn_test_ or cngn_live_/);
  });

  it('derives a stable id that does not contain the key', () => {
    const id = keyId('cngn_live_supersecret');
    expect(id).toBe(keyId('cngn_live_supersecret'));
    expect(id).not.toBe(keyId('cngn_live_other'));
    expect(id).not.toContain('supersecret');
    expect(id).toMatch(/^[0-9a-f]{16}$/);
  });
});
