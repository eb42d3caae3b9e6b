// Socket Mode's counterpart of the request guard: each envelope's payload is checked as the guard checks
// a body over HTTP (nesting depth, then the envelope's shape: the same function) before Bolt reads any
// of it. Bolt's socket receiver hands every envelope to `app.processEvent`, and Bolt reads fields there
// before the first global middleware runs (`body.user.team_id` …), so the check sits in front of that
// call. An envelope that fails is acked (Slack would only send it again), logged with its reason and
// Slack's id, and goes no further: no listener runs, and the connection goes on to the next one.
import type { App, ReceiverEvent } from '@slack/bolt';
import type { Logger } from '../../log.js';
import { checkSlackBody } from './envelope.js';
import type { SlackTraffic } from './in-flight.js';
import { slackRequestId } from './request-guard.js';

export interface SocketGuardOptions {
  logger: Logger;
  /** Told of each envelope's arrival, and of its ack from Bolt's first step to the listener's return. */
  traffic?: SlackTraffic | undefined;
}

/** Puts the envelope check in front of `app.processEvent`, where the socket receiver hands each envelope. */
export function guardSocketEvents(app: App, options: SocketGuardOptions): void {
  const processEvent = app.processEvent.bind(app);
  const { traffic } = options;
  app.processEvent = async (event: ReceiverEvent) => {
    const checked = checkSlackBody(event.body);
    if (checked.ok) return processEvent(event);
    traffic?.arrived();
    const slackId = slackRequestId(event.body);
    const logger = slackId ? options.logger.child({ slackRequestId: slackId }) : options.logger;
    logger.warn('refused a Slack request over Socket Mode', { reason: checked.reason.slice(0, 300) });
    await event.ack();
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
