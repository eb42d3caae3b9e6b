// Socket Mode's counterpart of the request guard, in two steps. First each message off the socket is
// looked at before the Socket Mode client reads it: the client reads `payload.event.type` of an event
// envelope and emits on its envelope's and event's type names, so an envelope without its event, or
// one naming the client's own events (`ws_message`, `close` …), would throw inside it (an unhandled
// rejection, and no ack: Slack would send it again) or steer it. Such an envelope is acked here, with
// the frame the client's own ack sends, and goes no further. Then each envelope's payload is checked
// as the guard checks a body over HTTP (nesting depth, then the envelope's shape: the same function)
// before Bolt reads any of it. Bolt's socket receiver hands every envelope to `app.processEvent`, and
// Bolt reads fields there before the first global middleware runs (`body.user.team_id` …), so the
// check sits in front of that call. An envelope refused at either step is acked (Slack would only
// send it again), logged with its reason and Slack's id, counted as traffic that arrived, and reaches
// no listener; the connection goes on to the next one.
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
type Refused = { reason: string; envelopeId?: string; payload?: unknown };

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
  const envelopeId = typeof id === 'string' ? id.slice(0, 100) : undefined;
  const refused = (reason: string): Refused => ({ reason, ...(envelopeId ? { envelopeId } : {}), payload });
  if (typeof type !== 'string' || !DISPATCHED.has(type))
    return refused('type: not an envelope type Slack sends');
  if (!envelopeId) return refused('envelope_id: expected a string');
  if (type !== 'events_api') return undefined;
  if (!isObject(payload)) return refused('events_api: payload: expected an object');
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

/** Acked (when it names its envelope) with the frame the client's own ack sends, and logged. */
function refuseMessage(client: SocketClient, refused: Refused, options: SocketGuardOptions): void {
  options.traffic?.arrived();
  const { envelopeId, reason } = refused;
  const slackId = slackRequestId(refused.payload);
  const logger = slackId ? options.logger.child({ slackRequestId: slackId }) : options.logger;
  logger.warn('refused a Slack request over Socket Mode', {
    reason,
    ...(envelopeId ? { envelopeId } : {}),
  });
  if (!envelopeId) return;
  client.websocket?.send(JSON.stringify({ envelope_id: envelopeId, payload: {} }), (error) => {
    if (error) logger.warn('the ack of a refused Socket Mode envelope was not sent', { envelopeId, error });
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
