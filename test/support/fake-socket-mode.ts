// Slack's Socket Mode end, on 127.0.0.1: the WebSocket URL that the fake Slack's apps.connections.open
// hands out. It greets each connection with Slack's `hello`, answers pings, and keeps what the bot
// sends (its acks). Only what Slack's side of the protocol needs: one unfragmented frame at a time.
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { newTriggerId } from './slack-requests.js';

const WEBSOCKET_GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';
const TEXT = 0x1;
const CLOSE = 0x8;
const PING = 0x9;
const PONG = 0xa;

function frame(opcode: number, payload: Buffer): Buffer {
  const length = payload.length;
  const head =
    length < 126
      ? Buffer.from([0x80 | opcode, length])
      : length < 65_536
        ? Buffer.from([0x80 | opcode, 126, length >> 8, length & 0xff])
        : Buffer.concat([Buffer.from([0x80 | opcode, 127]), bigLength(length)]);
  return Buffer.concat([head, payload]);
}

function bigLength(length: number): Buffer {
  const out = Buffer.alloc(8);
  out.writeBigUInt64BE(BigInt(length));
  return out;
}

/** The first whole frame in `data` (client frames are masked), or undefined until it has arrived. */
function readFrame(data: Buffer): { opcode: number; payload: Buffer; size: number } | undefined {
  if (data.length < 2) return undefined;
  const opcode = (data[0] ?? 0) & 0x0f;
  const masked = ((data[1] ?? 0) & 0x80) !== 0;
  let length = (data[1] ?? 0) & 0x7f;
  let at = 2;
  if (length === 126) {
    if (data.length < 4) return undefined;
    length = data.readUInt16BE(2);
    at = 4;
  } else if (length === 127) {
    if (data.length < 10) return undefined;
    length = Number(data.readBigUInt64BE(2));
    at = 10;
  }
  const mask = masked ? data.subarray(at, at + 4) : undefined;
  if (masked) at += 4;
  if (data.length < at + length) return undefined;
  const payload = Buffer.from(data.subarray(at, at + length));
  if (mask) for (let i = 0; i < payload.length; i++) payload[i] = (payload[i] ?? 0) ^ (mask[i % 4] ?? 0);
  return { opcode, payload, size: at + length };
}

export class FakeSocketMode {
  /** Every JSON message the bot sent, in order. */
  readonly received: Array<Record<string, unknown>> = [];
  /** Connections opened so far (a reconnect adds one). */
  connections = 0;
  private readonly sockets = new Set<Duplex>();
  private waiters: Array<() => void> = [];
  private constructor(
    private readonly server: Server,
    /**
     * The URL apps.connections.open hands out. It stays this one after stop(), as a URL Slack handed
     * out does when its end goes away: a client that connects to it then is refused, and tries again.
     */
    readonly url: string,
  ) {}

  static async start(): Promise<FakeSocketMode> {
    const server = createServer((_req, res) => {
      res.writeHead(426, { 'content-type': 'text/plain' });
      res.end('upgrade required');
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const fake = new FakeSocketMode(server, `ws://127.0.0.1:${(server.address() as AddressInfo).port}/link`);
    server.on('upgrade', (req, socket) =>
      fake.accept(String(req.headers['sec-websocket-key'] ?? ''), socket),
    );
    return fake;
  }

  /** Sends an envelope (an event, a slash command…) to every open connection. */
  send(message: Record<string, unknown>): void {
    const bytes = frame(TEXT, Buffer.from(JSON.stringify(message)));
    for (const socket of this.sockets) socket.write(bytes);
  }

  /** Sends `/cngn <text>` as Slack's Socket Mode envelope; the bot's ack carries `envelopeId`. */
  sendCommand(envelopeId: string, text: string, responseUrl: string): void {
    this.send({
      envelope_id: envelopeId,
      type: 'slash_commands',
      accepts_response_payload: true,
      payload: {
        command: '/cngn',
        text,
        user_id: 'UREQ',
        channel_id: 'CCMD',
        team_id: 'T1',
        trigger_id: newTriggerId(),
        response_url: responseUrl,
      },
    });
  }

  /** Sends an interaction (block_actions, view_submission …) as Slack's `interactive` envelope. */
  sendInteraction(envelopeId: string, payload: unknown): void {
    this.send({ envelope_id: envelopeId, type: 'interactive', accepts_response_payload: true, payload });
  }

  /** Resolves with the first message from the bot that matches, already received or to come. */
  async waitFor(
    test: (message: Record<string, unknown>) => boolean,
    timeoutMs = 10_000,
  ): Promise<Record<string, unknown>> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.received.find(test);
      if (found) return found;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error('no matching Socket Mode message from the bot');
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private accept(key: string, socket: Duplex): void {
    const accept = createHash('sha1').update(`${key}${WEBSOCKET_GUID}`).digest('base64');
    socket.write(
      'HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
        `Sec-WebSocket-Accept: ${accept}\r\n\r\n`,
    );
    this.sockets.add(socket);
    this.connections += 1;
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => this.sockets.delete(socket));
    let pending = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      for (let next = readFrame(pending); next; next = readFrame(pending)) {
        pending = pending.subarray(next.size);
        this.onFrame(socket, next.opcode, next.payload);
      }
    });
    socket.write(
      frame(
        TEXT,
        Buffer.from(
          JSON.stringify({
            type: 'hello',
            num_connections: this.sockets.size,
            debug_info: { host: 'fake-socket-mode' },
            connection_info: { app_id: 'A0FAKE' },
          }),
        ),
      ),
    );
  }

  private onFrame(socket: Duplex, opcode: number, payload: Buffer): void {
    if (opcode === PING) socket.write(frame(PONG, payload));
    else if (opcode === CLOSE) {
      socket.write(frame(CLOSE, payload));
      socket.end();
    } else if (opcode === TEXT) {
      this.received.push(JSON.parse(payload.toString('utf8')) as Record<string, unknown>);
      const waiting = this.waiters;
      this.waiters = [];
      for (const wake of waiting) wake();
    }
  }
}
