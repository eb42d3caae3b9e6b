// Socket Mode's counterpart of the request guard, in two steps. First each message off the socket is
// looked at before the Socket Mode client reads it: the client reads `payload.event.type` of an event
// envelope and emits on its envelope's and event's type names, so an envelope without its event, or
// one naming the client's own events (`ws_message`, `close` …), would throw inside it (an unhandled
// rejection, and no ack: Slack would send it again) or steer it. Such an envelope is acked here, by
// the client's own ack, and goes no further. Then each envelope's payload is checked
// as the guard checks a body over HTTP (nesting depth, then the envelope's shape: the same function)
// before Bolt reads any of it. Bolt's socket receiver hands every envelope to `app.processEvent`, and
// Bolt reads fields there before the first global middleware runs (`body.user.team_id` …), so the
// check sits in front of that call. An envelope refused at either step is acked (Slack would only
// send it again), logged with its reason and Slack's id, counted as traffic that arrived, and reaches
// no listener; the connection goes on to the next one.
// The first step depends on @slack/socket-mode (3.1.0) registering its one `ws_message` handler in its
// constructor, once: at start-up exactly one must be there to take off, or the bot refuses to start,
// since a handler added later (per socket, on reconnect) would run unguarded beside ours.
import { createRequire } from 'node:module';
import type { App, ReceiverEvent, SocketModeReceiver } from '@slack/bolt';
import type { Logger } from '../../log.js';
import { checkSlackBody } from './envelope.js';
import type { SlackTraffic } from './in-flight.js';
import { refusedFormAnswer } from './refused-form.js';
import { slackRequestId } from './request-guard.js';

export interface SocketGuardOptions {
  logger: Logger;
  /** Told of each envelope's arrival, and of its ack from Bolt's first step to the listener's return. */
  traffic?: SlackTraffic | undefined;
}

type SocketClient = SocketModeReceiver['client'];

/** The envelope types Slack sends over Socket Mode; `hello` and `disconnect` are the client's alone. */
const DISPATCHED = new Set(['events_api', 'interactive', 'slash_commands']);
const CONNECTION = new Set(['hello', 'disconnect']);
/** Names the client emits and listens on itself: an event of one of these types would steer it. */
const CLIENT_EVENTS = new Set([
  'error',
  'close',
  'ws_message',
  'slack_event',
  'outgoing_message',
  'connecting',
  'connected',
  'reconnecting',
  'disconnecting',
  'disconnected',
  'authenticated',
]);

/** Why the client must not dispatch a message, with its envelope id when it has one; undefined when it may. */
type Refused = { reason: string; envelopeId?: string; payload?: unknown; rateLimited?: true };

/** The socket client's `send`, private in its types: the ack it writes, behind its own open-socket check. */
type Acking = { send(id: string, body?: Record<string, unknown>): Promise<void> };

/** The @slack/socket-mode Bolt runs on, its version for the start-up error; 'unknown' if unreadable. */
function socketModeVersion(): string {
  try {
    const bolt = createRequire(createRequire(import.meta.url).resolve('@slack/bolt'));
    const pkg = bolt('@slack/socket-mode/package.json') as { version?: unknown };
    return typeof pkg.version === 'string' ? pkg.version : 'unknown';
  } catch {
    return 'unknown';
  }
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** What the Socket Mode client reads of a message before Bolt's turn, checked. */
function refusedMessage(text: string): Refused | undefined {
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    return { reason: 'the message is not JSON' };
  }
  if (!isObject(message)) return { reason: 'the message is not a JSON object' };
  const { type, envelope_id: id, payload } = message;
  if (typeof type === 'string' && CONNECTION.has(type)) return undefined;
  const envelopeId = typeof id === 'string' ? id : undefined;
  const refused = (reason: string): Refused => ({ reason, ...(envelopeId ? { envelopeId } : {}), payload });
  if (typeof type !== 'string' || !DISPATCHED.has(type))
    return refused('type: not an envelope type Slack sends');
  if (!envelopeId) return refused('envelope_id: expected a string');
  if (type !== 'events_api') return undefined;
  if (!isObject(payload)) return refused('events_api: payload: expected an object');
  // Slack's notice that it is dropping this app's events (30,000 an hour from one workspace): no event.
  if (payload.type === 'app_rate_limited') return { ...refused('app_rate_limited'), rateLimited: true };
  const { event } = payload;
  if (!isObject(event)) return refused('events_api: payload.event: expected an object');
  if (typeof event.type !== 'string') return refused('events_api: payload.event.type: expected a string');
  if (CLIENT_EVENTS.has(event.type)) {
    return refused("events_api: payload.event.type: names an event of the Socket Mode client's own");
  }
  return undefined;
}

/**
 * Puts a check in front of the client's own handler of each message off the socket (the one listener
 * on `ws_message`, taken off and called from here); a failure inside it is logged, not left unhandled.
 */
function guardSocketMessages(client: SocketClient, options: SocketGuardOptions): void {
  const dispatchers = client.listeners('ws_message') as Array<(data: unknown, isBinary: boolean) => unknown>;
  if (dispatchers.length !== 1) {
    throw new Error(
      `@slack/socket-mode ${socketModeVersion()} has ${dispatchers.length} ws_message handlers at start-up, ` +
        'not the one (registered in its constructor, as in 3.1.0) the Socket Mode guard wraps',
    );
  }
  client.removeAllListeners('ws_message');
  client.on('ws_message', (data: unknown, isBinary: boolean) => {
    const refused = isBinary ? undefined : refusedMessage(messageText(data));
    if (refused) return refuseMessage(client, refused, options);
    const failed = (error: unknown) =>
      options.logger.error('a Socket Mode message failed before Bolt took it', { error });
    for (const dispatch of dispatchers) {
      try {
        const handled = dispatch.call(client, data, isBinary);
        if (handled instanceof Promise) handled.catch(failed);
      } catch (error) {
        failed(error);
      }
    }
  });
}

function messageText(data: unknown): string {
  if (typeof data === 'string') return data;
  try {
    return new TextDecoder().decode(data as ArrayBuffer);
  } catch {
    return '';
  }
}

/** Acked (when it names its envelope) by the client's own ack, and logged (its id cut for the log only). */
function refuseMessage(client: SocketClient, refused: Refused, options: SocketGuardOptions): void {
  options.traffic?.arrived();
  const { envelopeId, reason } = refused;
  const slackId = slackRequestId(refused.payload);
  const logger = slackId ? options.logger.child({ slackRequestId: slackId }) : options.logger;
  const logged = envelopeId ? { envelopeId: envelopeId.slice(0, 100) } : {};
  if (refused.rateLimited) logger.warn('Slack is dropping events for this app (app_rate_limited)', logged);
  else logger.warn('refused a Slack request over Socket Mode', { reason, ...logged });
  if (!envelopeId) return;
  (client as unknown as Acking).send(envelopeId).catch((error: unknown) => {
    logger.warn('the ack of a refused Socket Mode envelope was not sent', { ...logged, error });
  });
}

/**
 * Puts the message check in front of the socket client's handler, and the envelope check in front of
 * `app.processEvent`, where the socket receiver hands each envelope.
 */
export function guardSocketEvents(app: App, client: SocketClient, options: SocketGuardOptions): void {
  guardSocketMessages(client, options);
  const processEvent = app.processEvent.bind(app);
  const { traffic } = options;
  app.processEvent = async (event: ReceiverEvent) => {
    const checked = checkSlackBody(event.body);
    if (checked.ok) return processEvent(event);
    traffic?.arrived();
    const slackId = slackRequestId(event.body);
    const logger = slackId ? options.logger.child({ slackRequestId: slackId }) : options.logger;
    logger.warn('refused a Slack request over Socket Mode', { reason: checked.reason.slice(0, 300) });
    // A form's refusal keeps it open (refused-form.ts); anything else gets the empty ack.
    await event.ack(refusedFormAnswer(event.body));
  };
  if (traffic) countTraffic(app, traffic);
}

/** Counted from Bolt's first step to the listener's return: it has acked by then (answers run later). */
function countTraffic(app: App, traffic: SlackTraffic): void {
  app.use(async ({ next }) => {
    traffic.arrived();
    const answered = traffic.acking();
    try {
      await next();
    } finally {
      answered();
    }
  });
}
