// A response_url as Slack serves it: 5 posts within 30 minutes; an answer is private to the person
// unless it says in_channel; replace_original edits the message the click came from (an ephemeral
// one included) and delete_original removes it.
import { z } from 'zod';
import type { WorkbenchMessage } from './protocol.js';
import { checkMessage, SlackRefusal } from './slack-rules.js';
import { type Answer, safeJson } from './slack-shapes.js';
import { withIds } from './views.js';
import type { Workspace } from './workspace.js';

const responseBody = z.looseObject({
  text: z.string().optional(),
  blocks: z.unknown().optional(),
  response_type: z.enum(['ephemeral', 'in_channel']).optional(),
  replace_original: z
    .union([z.boolean(), z.literal('true'), z.literal('false')])
    .optional()
    .transform((v) => v === true || v === 'true'),
  delete_original: z
    .union([z.boolean(), z.literal('true'), z.literal('false')])
    .optional()
    .transform((v) => v === true || v === 'true'),
  thread_ts: z.string().optional(),
});

export async function answerResponseUrl(workspace: Workspace, token: string, raw: string): Promise<Answer> {
  const context = await workspace.useResponseUrl(token);
  if (!context) return { status: 404, body: { ok: false, error: 'expired_url' } };
  const parsed = responseBody.safeParse(safeJson(raw));
  if (!parsed.success) return { status: 400, body: { ok: false, error: 'invalid_payload' } };
  const body = parsed.data;
  if (body.delete_original) {
    if (context.messageTs) await workspace.edit(context.channel, context.messageTs, () => 'delete');
    return { status: 200, body: { ok: true } };
  }
  const refused = refusal(body);
  if (refused) return refused;
  const blocks = blocksOf(body.blocks);
  if (body.replace_original && context.messageTs) {
    const replaced = await workspace.edit(context.channel, context.messageTs, (m) =>
      replacement(m, body.text, blocks),
    );
    if (replaced) return { status: 200, body: { ok: true } };
  }
  await workspace.post({
    channel: context.channel,
    bot: true,
    text: body.text ?? '',
    ...(blocks ? { blocks } : {}),
    ...(body.thread_ts ? { thread_ts: body.thread_ts } : {}),
    ...(body.response_type === 'in_channel' ? {} : { visibleTo: context.user }),
  });
  return { status: 200, body: { ok: true } };
}

/** Slack's 400 for a message it would refuse; undefined when it would take it. */
function refusal(body: z.infer<typeof responseBody>): Answer | undefined {
  try {
    checkMessage(body);
    return undefined;
  } catch (error) {
    if (!(error instanceof SlackRefusal)) throw error;
    return {
      status: 400,
      body: { ok: false, error: error.error, response_metadata: { messages: error.messages } },
    };
  }
}

/** The original message with the answer's text and blocks in place of its own, marked edited. */
function replacement(
  message: WorkbenchMessage,
  text: string | undefined,
  blocks: WorkbenchMessage['blocks'],
): WorkbenchMessage {
  const next: WorkbenchMessage = { ...message, text: text ?? '', edited: true };
  if (blocks) next.blocks = blocks;
  else delete next.blocks;
  return next;
}

/** The answer's blocks with the ids Slack gives them; undefined when it has none. */
function blocksOf(blocks: unknown): WorkbenchMessage['blocks'] {
  return Array.isArray(blocks) && blocks.length
    ? withIds(blocks as NonNullable<WorkbenchMessage['blocks']>)
    : undefined;
}
