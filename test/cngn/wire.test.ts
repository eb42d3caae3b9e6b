import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  aesKeyFor,
  curvePublicFromEd25519,
  curveSecretFromSeed,
  generateOpenSshKeyPair,
  KeyFormatError,
  openRequestBody,
  openResponseData,
  parseOpenSshPrivateKey,
  parseOpenSshPublicKey,
  sealRequestBody,
  sealResponseData,
  WireError,
} from '../../src/cngn/wire.js';

const fixture = (name: string) => new URL(`../fixtures/${name}`, import.meta.url);
const vectors = JSON.parse(readFileSync(fixture('vectors.json'), 'utf8'));
const privateKeyText = readFileSync(fixture('test_ed25519'), 'utf8');
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

/** An OpenSSH key field: its length (4 bytes, big-endian), then its bytes. */
const sshField = (v: string | Buffer) => {
  const b = typeof v === 'string' ? Buffer.from(v) : v;
  const l = Buffer.alloc(4);
  l.writeUInt32BE(b.length);
  return Buffer.concat([l, b]);
};

/** A private key file holding `body` as OpenSSH writes one. */
const openSshPem = (body: Buffer) =>
  `-----BEGIN OPENSSH PRIVATE KEY-----\n${body.toString('base64')}\n-----END OPENSSH PRIVATE KEY-----\n`;

describe('wire vectors', () => {
  const key = parseOpenSshPrivateKey(privateKeyText);
  const curveSecret = curveSecretFromSeed(key.seed);

  it('derives the AES key as SHA-256 of the encryption key string', () => {
    expect(aesKeyFor(vectors.encryptionKey).toString('hex')).toBe(vectors.aesKeySha256Hex);
  });

  it('parses the OpenSSH private and public key files to the vector seed and public key', () => {
    expect(hex(key.seed)).toBe(vectors.ed25519.seedHex);
    expect(hex(key.publicKey)).toBe(vectors.ed25519.publicKeyHex);
    const pub = parseOpenSshPublicKey(readFileSync(fixture('test_ed25519.pub'), 'utf8'));
    expect(hex(pub)).toBe(vectors.ed25519.publicKeyHex);
  });

  it('converts both halves to their Curve25519 forms', async () => {
    expect(hex(curveSecret)).toBe(vectors.curve25519.secretKeyHex);
    expect(hex(await curvePublicFromEd25519(key.publicKey))).toBe(vectors.curve25519.publicKeyHex);
  });

  for (const request of vectors.requests) {
    it(`seals request "${request.name}" byte for byte with the fixed IV, and opens it back`, () => {
      const sealed = sealRequestBody(
        request.plaintext,
        vectors.encryptionKey,
        Buffer.from(request.wire.iv, 'base64'),
      );
      expect(sealed).toEqual(request.wire);
      expect(JSON.stringify(sealed)).toBe(JSON.stringify(request.wire));
      expect(openRequestBody(request.wire, vectors.encryptionKey)).toBe(request.plaintext);
    });
  }

  for (const response of vectors.responses) {
    it(`opens response "${response.name}" with the private key file, and seals it identically`, async () => {
      expect(openResponseData(response.data, curveSecret)).toBe(response.plaintext);
      const sealed = sealResponseData(response.plaintext, await curvePublicFromEd25519(key.publicKey), {
        ephemeralSecretKey: Buffer.from(response.ephemeralSecretKeyHex, 'hex'),
        nonce: Buffer.from(response.nonceHex, 'hex'),
      });
      expect(sealed).toBe(response.data);
    });
  }

  it('refuses the tampered response with a clear error', () => {
    expect(() => openResponseData(vectors.tamperedResponse.data, curveSecret)).toThrow(WireError);
    expect(() => openResponseData(vectors.tamperedResponse.data, curveSecret)).toThrow(/tampered/);
  });

  it('refuses data sealed to another key', () => {
    const other = parseOpenSshPrivateKey(generateOpenSshKeyPair().privateKey);
    const data = vectors.responses[0].data;
    expect(() => openResponseData(data, curveSecretFromSeed(other.seed))).toThrow(WireError);
  });

  it('refuses data too short to be a box', () => {
    expect(() => openResponseData(Buffer.alloc(40).toString('base64'), curveSecret)).toThrow(/at least 72/);
  });

  it('seals each request body under a fresh IV, across refills of the IV buffer, and opens every one back', () => {
    // 600 seals use up the buffer of 256 IVs twice: no IV comes twice, and each is the one its text needs.
    const ivs = new Set<string>();
    for (let i = 0; i < 600; i++) {
      const text = `{"n":${i}}`;
      const sealed = sealRequestBody(text, vectors.encryptionKey);
      expect(Buffer.from(sealed.iv, 'base64')).toHaveLength(16);
      ivs.add(sealed.iv);
      expect(openRequestBody(sealed, vectors.encryptionKey)).toBe(text);
    }
    expect(ivs.size).toBe(600);
  });

  it('refuses a request body sealed under another encryption key', () => {
    // A fixed IV: with a random one, about 1 in 256 wrong keys happens to leave valid padding.
    const sealed = sealRequestBody('{"a":1}', 'one-key', Buffer.alloc(16, 7));
    expect(() => openRequestBody(sealed, 'another-key')).toThrow(/Decryption failed/);
  });
});

describe('OpenSSH keys', () => {
  it('round-trips a generated key pair', async () => {
    const pair = generateOpenSshKeyPair('x');
    const parsed = parseOpenSshPrivateKey(pair.privateKey);
    expect(hex(parseOpenSshPublicKey(pair.publicKey))).toBe(hex(parsed.publicKey));
    const sealed = sealResponseData('[1]', await curvePublicFromEd25519(parsed.publicKey));
    expect(openResponseData(sealed, curveSecretFromSeed(parsed.seed))).toBe('[1]');
  });

  it('names a passphrase-protected key', () => {
    // Same structure as an encrypted key: cipher aes256-ctr, kdf bcrypt.
    const body = Buffer.concat([
      Buffer.from('openssh-key-v1\0', 'latin1'),
      sshField('aes256-ctr'),
      sshField('bcrypt'),
      sshField(Buffer.alloc(24)),
    ]);
    const text = openSshPem(body);
    expect(() => parseOpenSshPrivateKey(text)).toThrow(/passphrase/);
  });

  it('names a non-Ed25519 key', () => {
    const body = Buffer.concat([
      Buffer.from('openssh-key-v1\0', 'latin1'),
      sshField('none'),
      sshField('none'),
      sshField(''),
      Buffer.from([0, 0, 0, 1]),
      sshField(Buffer.concat([sshField('ssh-rsa'), sshField(Buffer.alloc(3))])),
      sshField(Buffer.alloc(16)),
    ]);
    const text = openSshPem(body);
    expect(() => parseOpenSshPrivateKey(text)).toThrow(KeyFormatError);
    expect(() => parseOpenSshPrivateKey(text)).toThrow(/ssh-rsa.*Ed25519/);
  });

  it('names a PEM key that is not OpenSSH', () => {
    expect(() =>
      parseOpenSshPrivateKey('-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----'),
    ).toThrow(/OpenSSH format/);
  });
});
