// The NaCl box beyond the vectors: what libsodium refuses, and the per-key caches never serving a
// key that is no longer the caller's.
import { readFileSync } from 'node:fs';
import { hsalsa, xsalsa20poly1305 } from '@noble/ciphers/salsa.js';
import { describe, expect, it } from 'vitest';
import {
  curvePublicFromEd25519,
  curveSecretFromSeed,
  generateOpenSshKeyPair,
  openResponseData,
  parseOpenSshPrivateKey,
  sealResponseData,
  WireError,
} from '../../src/cngn/wire.js';

const vectors = JSON.parse(readFileSync(new URL('../fixtures/vectors.json', import.meta.url), 'utf8'));
const vectorSecret = () => Buffer.from(vectors.curve25519.secretKeyHex, 'hex');
const words = (bytes: Uint8Array) => new Uint32Array(new Uint8Array(bytes).buffer);

describe('NaCl box', () => {
  it('refuses a box from a small-order ephemeral key, as libsodium does', () => {
    // With the all-zero public key every secret gives the all-zero shared secret, so anyone can
    // compute the box key: HSalsa20 of zero. libsodium's crypto_box_open refuses such a key.
    const key = new Uint32Array(8);
    hsalsa(words(Buffer.from('expand 32-byte k', 'latin1')), new Uint32Array(8), new Uint32Array(4), key);
    const nonce = new Uint8Array(24).fill(9);
    const box = xsalsa20poly1305(new Uint8Array(key.buffer), nonce).encrypt(Buffer.from('{"forged":true}'));
    const data = Buffer.concat([nonce, box, Buffer.alloc(32)]).toString('base64');
    expect(() => openResponseData(data, vectorSecret())).toThrow(WireError);
    expect(() => openResponseData(data, vectorSecret())).toThrow(/tampered/);
  });

  it('opens with the key an array holds now, not the one it held before', async () => {
    const secret = vectorSecret();
    expect(openResponseData(vectors.responses[0].data, secret)).toBe(vectors.responses[0].plaintext);
    const other = parseOpenSshPrivateKey(generateOpenSshKeyPair().privateKey);
    secret.set(curveSecretFromSeed(other.seed));
    expect(() => openResponseData(vectors.responses[0].data, secret)).toThrow(WireError);
    const sealed = sealResponseData('[2]', await curvePublicFromEd25519(other.publicKey));
    expect(openResponseData(sealed, secret)).toBe('[2]');
  });

  it('seals to the key an array holds now, not the one it held before', async () => {
    const first = parseOpenSshPrivateKey(generateOpenSshKeyPair().privateKey);
    const second = parseOpenSshPrivateKey(generateOpenSshKeyPair().privateKey);
    const recipient = await curvePublicFromEd25519(first.publicKey);
    expect(openResponseData(sealResponseData('[1]', recipient), curveSecretFromSeed(first.seed))).toBe('[1]');
    recipient.set(await curvePublicFromEd25519(second.publicKey));
    expect(openResponseData(sealResponseData('[2]', recipient), curveSecretFromSeed(second.seed))).toBe(
      '[2]',
    );
  });

  it('gives each caller its own copy of a converted public key', async () => {
    const key = parseOpenSshPrivateKey(generateOpenSshKeyPair().privateKey);
    const first = await curvePublicFromEd25519(key.publicKey);
    const expected = Buffer.from(first).toString('hex');
    first.fill(0);
    expect(Buffer.from(await curvePublicFromEd25519(key.publicKey)).toString('hex')).toBe(expected);
  });

  it('seals with a fresh ephemeral key and nonce every time', async () => {
    const key = parseOpenSshPrivateKey(generateOpenSshKeyPair().privateKey);
    const recipient = await curvePublicFromEd25519(key.publicKey);
    const a = Buffer.from(sealResponseData('[1]', recipient), 'base64');
    const b = Buffer.from(sealResponseData('[1]', recipient), 'base64');
    expect(a.subarray(0, 24).equals(b.subarray(0, 24))).toBe(false);
    expect(a.subarray(-32).equals(b.subarray(-32))).toBe(false);
  });

  it('names a secret key of the wrong length', () => {
    expect(() => openResponseData(vectors.responses[0].data, new Uint8Array(31))).toThrow(/32 bytes/);
  });
});
