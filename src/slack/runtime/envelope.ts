// What Slack sends, to POST /slack/events or over the Socket Mode connection, checked with zod before
// Bolt reads it (request-guard.ts, socket-guard.ts). Bolt assumes these shapes (it reads
// `body.ssl_check`, `body.event.channel`, `body.user.team_id`, `body.channel.id` … without checks), so a
// body of another shape could make it throw. Only the fields Bolt and our listeners rely on are checked;
// the rest passes as it came. The classes follow Bolt's own order (event → command → options → action
// → shortcut → view) so each body is checked as what Bolt will take it for. Listeners still parse their
// own payload (modal values, button values).
import { z } from 'zod';
import { nestsDeeperThan } from '../../format/json-depth.js';

/** Slack's payloads nest about a dozen levels (rich text inside blocks inside a view). */
export const SLACK_BODY_MAX_DEPTH = 64;

const text = z.string();
// Where the bot answers later; Slack's are https URLs, anything else would fail only after the ack.
const responseUrl = z.url({ protocol: /^https?$/ });
// Bolt keys its client pool by the team or enterprise id wherever the body carries one (a team id, the
// user's team, the first authorization): an object there, converted to a key, can throw.
const user = z.looseObject({ id: text, team_id: text.nullish() });
// Org-wide installs send `team: null`; Bolt handles null there, not another type.
const team = z.looseObject({ id: text, enterprise_id: text.nullish() }).nullish();
const channel = z.looseObject({ id: text });

const view = z.looseObject({
  id: text,
  callback_id: text,
  private_metadata: text.optional(),
  state: z.looseObject({ values: z.record(text, z.unknown()) }).optional(),
  app_installed_team_id: text.optional(),
});

const eventCallback = z.looseObject({
  type: z.literal('event_callback'),
  event: z.looseObject({
    type: text,
    user: z.union([text, z.looseObject({ id: text })]).optional(),
    channel: z.union([text, z.looseObject({})]).optional(),
    item: z.looseObject({}).optional(),
    subteam: z.looseObject({}).optional(),
  }),
  team_id: text.nullish(),
  enterprise_id: text.nullish(),
  authorizations: z
    .array(z.looseObject({ team_id: text.nullish(), enterprise_id: text.nullish() }))
    .optional(),
});

// Form fields of a slash command: each exactly once (a repeated field would arrive as a list). A
// catch-all rather than an intersection with a record: same rule, a fifth of the cost before each ack.
const slashCommand = z
  .object({
    command: text,
    text,
    user_id: text,
    channel_id: text,
    trigger_id: text,
    response_url: responseUrl,
    team_id: text.optional(),
  })
  .catchall(text);

const interaction = {
  user,
  team,
  enterprise: z.looseObject({ id: text }).nullish(),
  channel: channel.optional(),
  view: view.optional(),
  response_url: responseUrl.optional(),
  response_urls: z.array(z.looseObject({ response_url: responseUrl })).optional(),
};

const blockSuggestion = z.looseObject({
  ...interaction,
  type: z.literal('block_suggestion'),
  action_id: text,
  block_id: text,
  value: text,
});

const blockActions = z.looseObject({
  ...interaction,
  type: z.literal('block_actions'),
  actions: z.array(z.looseObject({ action_id: text, block_id: text.optional() })).min(1),
  trigger_id: text.optional(),
  container: z.looseObject({ channel_id: text.optional(), message_ts: text.optional() }).optional(),
  message: z.looseObject({ ts: text.optional() }).optional(),
});

const viewAction = z.looseObject({
  ...interaction,
  type: z.enum(['view_submission', 'view_closed']),
  view,
});

const sslCheck = z.looseObject({ ssl_check: z.literal('1') });
const urlVerification = z.looseObject({ type: z.literal('url_verification'), challenge: text });

type Check = { ok: true } | { ok: false; reason: string };

function check(schema: z.ZodType, body: unknown, kind: string): Check {
  const parsed = schema.safeParse(body);
  if (parsed.success) return { ok: true };
  const issue = parsed.error.issues[0];
  const where = issue?.path.length ? issue.path.join('.') : 'body';
  return { ok: false, reason: `${kind}: ${where}: ${issue?.message ?? 'unexpected shape'}` };
}

/**
 * Whether a parsed body is a Slack request of a kind this app takes, in the shape Bolt expects;
 * the reason (kind, field, problem) when not.
 */
function checkSlackEnvelope(body: unknown): Check {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    return { ok: false, reason: 'the body is not a JSON object' };
  }
  const b = body as Record<string, unknown>;
  if (b.ssl_check !== undefined) return check(sslCheck, b, 'ssl_check');
  if (b.type === 'url_verification') return check(urlVerification, b, 'url_verification');
  if (b.event !== undefined) return check(eventCallback, b, 'event');
  if (b.command !== undefined) return check(slashCommand, b, 'slash command');
  if (b.name !== undefined) return { ok: false, reason: 'legacy dialog options are not taken' };
  if (b.type === 'block_suggestion') return check(blockSuggestion, b, 'block_suggestion');
  if (b.actions !== undefined || b.type === 'block_actions') return check(blockActions, b, 'block_actions');
  if (b.type === 'view_submission' || b.type === 'view_closed') return check(viewAction, b, String(b.type));
  return { ok: false, reason: 'not a kind of Slack request this app takes' };
}

/**
 * A parsed body as both transports check it before Bolt reads it: its nesting depth, then its envelope;
 * the reason (kind, field, problem) when it fails.
 */
export function checkSlackBody(body: unknown, maxDepth = SLACK_BODY_MAX_DEPTH): Check {
  if (nestsDeeperThan(body, maxDepth))
    return { ok: false, reason: `the body nests deeper than ${maxDepth} levels` };
  return checkSlackEnvelope(body);
}
