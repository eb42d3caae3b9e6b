// Large sealed answers opened in the worker thread: the same text as openResponseData opens on the bot's
// thread, the same refusal for an answer that does not open, and a worker that ends with the client.
// Real crypto throughout: the fixtures' vectors, and pages sealed with the service side's own seal.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SealedOpener } from '../../src/cngn/opener.js';
import { openResponseData, sealResponseData, WireError } from '../../src/cngn/wire.js';

const vectors = JSON.parse(readFileSync(new URL('../fixtures/vectors.json', import.meta.url), 'utf8'));
const secret = () => new Uint8Array(Buffer.from(vectors.curve25519.secretKeyHex, 'hex'));
const publicKey = () => new Uint8Array(Buffer.from(vectors.curve25519.publicKeyHex, 'hex'));

/** A page of `count` transactions as the service lists them, sealed to the vectors' key. */
function sealedPage(count: number, options: { nonce?: Uint8Array } = {}) {
  const data = Array.from({ length: count }, (_, i) => ({
    trx_ref: `ref-${i}`,
    amount: `${i}.50`,
    trx_type: 'withdraw',
    status: 'completed',
    description: 'Ọ̀yọ́ — ₦ payout',
    createdAt: new Date(Date.UTC(2026, 10, 1, 0, i)).toISOString(),
  }));
  const json = JSON.stringify({ data, pagination: { count, pages: 1, isLastPage: true } });
  return { json, sealed: sealResponseData(json, publicKey(), options) };
}

/** The same sealed text with one byte of its box changed. */
function tampered(sealed: string): string {
  const bytes = Buffer.from(sealed, 'base64');
  bytes[100] = (bytes[100] ?? 0) ^ 1;
  return bytes.toString('base64');
}

describe('SealedOpener', () => {
  it('opens a large answer off the thread to the very text openResponseData opens', async () => {
    const opener = new SealedOpener(secret());
    try {
      const { json, sealed } = sealedPage(1000);
      expect(sealed.length).toBeGreaterThan(100_000);
      const opened = await opener.open(sealed);
      expect(opened).toBe(json);
      expect(opened).toBe(openResponseData(sealed, secret()));
      // Several at once, each to its own text.
      const pages = [10, 900, 1200].map((count) => sealedPage(count));
      const all = await Promise.all(pages.map((page) => opener.open(page.sealed)));
      expect(all).toEqual(pages.map((page) => page.json));
    } finally {
      await opener.stop();
    }
  });

  it('opens every vector of the fixtures, through the worker wherever its size allows', async () => {
    // A threshold of 0 sends every answer long enough to hold a box to the worker.
    const opener = new SealedOpener(secret(), 0);
    try {
      for (const response of vectors.responses) {
        expect(await opener.open(response.data)).toBe(response.plaintext);
      }
      await expect(opener.open(vectors.tamperedResponse.data)).rejects.toThrow(WireError);
    } finally {
      await opener.stop();
    }
  });

  it('refuses a large answer that does not open, as openResponseData does', async () => {
    const opener = new SealedOpener(secret());
    try {
      const bad = tampered(sealedPage(1000).sealed);
      const refusal = (() => {
        try {
          openResponseData(bad, secret());
        } catch (error) {
          return error;
        }
      })();
      expect(refusal).toBeInstanceOf(WireError);
      await expect(opener.open(bad)).rejects.toThrow((refusal as Error).message);
      // The worker is still there for the next answer.
      const { json, sealed } = sealedPage(1000);
      expect(await opener.open(sealed)).toBe(json);
    } finally {
      await opener.stop();
    }
  });

  it('ends its worker once released, at once when idle, or once what it was sent is opened', async () => {
    const opener = new SealedOpener(secret());
    try {
      const first = sealedPage(1000);
      expect(await opener.open(first.sealed)).toBe(first.json);
      expect(opener.holdsThread).toBe(true);
      opener.release();
      expect(opener.holdsThread).toBe(false);

      // Released with an open under way: it is answered, then the worker ends.
      const second = sealedPage(2000);
      const under = opener.open(second.sealed);
      expect(opener.holdsThread).toBe(true);
      opener.release();
      expect(opener.holdsThread).toBe(true);
      expect(await under).toBe(second.json);
      expect(opener.holdsThread).toBe(false);

      // A large answer after it starts another, kept for the idle wait as ever.
      expect(await opener.open(first.sealed)).toBe(first.json);
      expect(opener.holdsThread).toBe(true);
    } finally {
      await opener.stop();
    }
  });

  it('ends its worker with the client: an open under way fails, and a later one starts another', async () => {
    const opener = new SealedOpener(secret());
    const { json, sealed } = sealedPage(2000);
    const under = opener.open(sealed).catch((error: unknown) => error);
    await opener.stop();
    expect(await under).toMatchObject({ message: expect.stringContaining('closed') });
    expect(await opener.open(sealed)).toBe(json);
    await opener.stop();
  });
});
