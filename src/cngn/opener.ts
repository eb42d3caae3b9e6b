// Opening the service's sealed answers without holding the event loop: a page of 1,000 transactions is
// about 1.1 MB of base64, and decoding and opening it takes tens of ms of the bot's thread on a loaded
// machine. Large answers are opened in one worker thread, started by a read that may bring one, ended
// when idle for 30 s, when the reads that brought them say they are done (see release), and with the
// client; small ones (a balance, a transaction) are opened here, where a round trip to the
// worker would cost more than it saves (docs/decisions/sealed-answers-off-thread.md).
// The key is made here, as wire.ts makes it (sealedDataKey); the worker decodes the text, cuts it where
// wire.ts's layout says and runs the one cipher call. A box the worker could not open is opened here
// again by openResponseData, so an answer that does not open fails exactly as it always did.
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { openResponseData, SEALED_LAYOUT, sealedDataKey } from './wire.js';

/** Sealed data of at least this many base64 characters (48 KiB of JSON) is opened in the worker. */
const OFF_THREAD_CHARS = 64 * 1024;

/** A worker with nothing to open for this long is ended: an idle bot keeps no thread for it. */
const IDLE_MS = 30_000;

/** The worker's heap: about three times the largest answer the transport takes (5 MB). */
const WORKER_HEAP_MB = 16;

/**
 * The worker's code, as text: the bundle has no file of its own for it. It loads @noble/ciphers by
 * path; for each answer it is sent it opens the box with the key it is sent, zeroes the key and
 * answers the JSON text, or `failed` when the box does not open.
 */
const OPEN = `
const { parentPort, workerData } = require('node:worker_threads');
const { nonceBytes, publicKeyBytes, minBytes } = workerData.layout;
const ready = import(workerData.salsa);
ready.catch(() => undefined); // each open says so
async function open(bytes, key) {
  const { xsalsa20poly1305 } = await ready;
  const blob = Buffer.from(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('latin1'), 'base64');
  if (blob.length < minBytes) throw new Error('too short');
  const nonce = blob.subarray(0, nonceBytes);
  const box = blob.subarray(nonceBytes, blob.length - publicKeyBytes);
  const opened = xsalsa20poly1305(key, nonce).decrypt(box);
  return Buffer.from(opened.buffer, opened.byteOffset, opened.length).toString('utf8');
}
parentPort.on('message', ({ id, bytes, key }) => {
  open(bytes, key).then(
    (text) => parentPort.postMessage({ id, opened: text }),
    () => parentPort.postMessage({ id, failed: true }),
  ).finally(() => key.fill(0));
});
`;

interface Answer {
  id: number;
  opened?: string;
  failed?: true;
}

interface Waiting {
  resolve: (opened: string | undefined) => void;
  reject: (error: Error) => void;
}

/** Where @noble/ciphers' salsa module is, for the worker to import it (the bundle holds its own copy). */
const salsaUrl = () => pathToFileURL(createRequire(import.meta.url).resolve('@noble/ciphers/salsa.js')).href;

/** The bytes on memory of their own, to be moved to another thread (a copy when they share a pool). */
function ownBytes(bytes: Buffer): Uint8Array {
  const alone = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
  return alone ? bytes : new Uint8Array(bytes);
}

export class SealedOpener {
  private worker: Worker | undefined;
  private readonly waiting = new Map<number, Waiting>();
  private lastId = 0;
  private idle: NodeJS.Timeout | undefined;
  /** Released: the worker ends as soon as nothing is waiting, not after the idle wait. */
  private releasing = false;

  constructor(
    private readonly curveSecretKey: Uint8Array,
    private readonly offThreadChars = OFF_THREAD_CHARS,
  ) {}

  /** The JSON text of sealed `data`; WireError when it does not open. */
  async open(data: string): Promise<string> {
    const key = data.length < this.offThreadChars ? undefined : sealedDataKey(data, this.curveSecretKey);
    if (!key) return openResponseData(data, this.curveSecretKey);
    const opened = await this.inWorker(data, key);
    // Not opened there: here, as ever, which says why (or, should the worker have erred, opens it).
    return opened ?? openResponseData(data, this.curveSecretKey);
  }

  /**
   * Starts the worker ahead of a read that may bring a large answer, so its start is not paid in the
   * turn the answer is opened in.
   */
  warm(): void {
    this.started();
    if (this.waiting.size === 0) this.endWhenIdle();
  }

  /**
   * The reads that may bring large answers are done (a report's list has been read): the worker ends
   * as soon as what it has been sent is opened, rather than after IDLE_MS. It is tens of MB of the
   * bot's memory, and what follows such a read (a report's chart, drawn in a thread of its own) should
   * not be counted on top of it. A large answer after this starts another worker, as ever.
   */
  release(): void {
    if (!this.worker) return;
    if (this.waiting.size === 0) void this.stop();
    else this.releasing = true;
  }

  /** Whether a worker thread is held now. */
  get holdsThread(): boolean {
    return this.worker !== undefined;
  }

  /** Ends the worker (the client is closing); an open under way fails. The next large open starts another. */
  async stop(): Promise<void> {
    clearTimeout(this.idle);
    const worker = this.worker;
    this.worker = undefined;
    this.releasing = false;
    const closed = new Error('the client was closed while an answer was being opened');
    this.settleAll(({ reject }) => reject(closed));
    await worker?.terminate();
  }

  /** The text opened in the worker; undefined when the box did not open there. */
  private inWorker(data: string, key: Uint8Array): Promise<string | undefined> {
    const worker = this.started();
    const id = ++this.lastId;
    const opened = new Promise<string | undefined>((resolve, reject) =>
      this.waiting.set(id, { resolve, reject }),
    );
    clearTimeout(this.idle);
    worker.ref();
    // The text as bytes (base64 is one byte a character), and the key, are moved, not copied: a string
    // would be serialised on this thread. The key leaves this thread; the worker zeroes it once used.
    const bytes = ownBytes(Buffer.from(data, 'latin1'));
    worker.postMessage({ id, bytes, key }, [bytes.buffer as ArrayBuffer, key.buffer as ArrayBuffer]);
    return opened;
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(OPEN, {
      eval: true,
      workerData: { salsa: salsaUrl(), layout: SEALED_LAYOUT },
      // A small heap collected early: the worker keeps nothing between answers, and the bot's RSS is
      // counted with it. An answer too large for it ends the worker, and is opened here.
      resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB, maxYoungGenerationSizeMb: 2 },
    });
    worker.unref();
    worker.on('message', (answer: Answer) => this.answered(answer));
    // A worker that fails or ends leaves its waiting answers to be opened here; the next starts another.
    worker.on('error', () => this.lost(worker));
    worker.on('exit', () => this.lost(worker));
    this.worker = worker;
    return worker;
  }

  private answered({ id, opened, failed }: Answer): void {
    const waiting = this.waiting.get(id);
    this.waiting.delete(id);
    if (this.waiting.size === 0 && this.releasing) void this.stop();
    else if (this.waiting.size === 0) {
      this.worker?.unref();
      this.endWhenIdle();
    }
    if (!waiting) return;
    waiting.resolve(failed ? undefined : opened);
  }

  /** Ends the worker once it has had nothing to open for IDLE_MS. */
  private endWhenIdle(): void {
    clearTimeout(this.idle);
    this.idle = setTimeout(() => {
      if (this.waiting.size === 0) void this.stop();
    }, IDLE_MS);
    this.idle.unref();
  }

  private lost(worker: Worker): void {
    if (this.worker !== worker) return;
    this.worker = undefined;
    this.releasing = false;
    this.settleAll(({ resolve }) => resolve(undefined));
  }

  private settleAll(settle: (waiting: Waiting) => void): void {
    const waiting = [...this.waiting.values()];
    this.waiting.clear();
    for (const each of waiting) settle(each);
  }
}
