// A message Slack refuses for its body (too long, blocks it will not take) is refused again if sent
// again: the approval message and its DM copies fall back to shorter forms instead (short-message.ts).
import type { SlackMessage } from '../types.js';

/** Slack's answers that refuse a message's body itself: sending it again would be refused again. */
// msg_blocks_too_long: the blocks' total size over a limit Slack does not document.
const REFUSED_BODY = new Set([
  'invalid_blocks',
  'invalid_blocks_format',
  'msg_too_long',
  'msg_blocks_too_long',
]);

function refusedBody(error: unknown): string | undefined {
  const e = error as { code?: unknown; data?: { error?: unknown } } | undefined;
  const reason = String(e?.data?.error);
  return e?.code === 'slack_webapi_platform_error' && REFUSED_BODY.has(reason) ? reason : undefined;
}

/**
 * Send the first of `forms` Slack takes, each tried once, in order; any other error, or the last form
 * refused, is thrown. `refused(at, reason)` is called for each form refused before the last.
 */
export async function sendOrShort<T>(
  forms: readonly SlackMessage[],
  send: (body: SlackMessage) => Promise<T>,
  refused: (at: number, reason: string) => void,
): Promise<{ answer: T; body: SlackMessage }> {
  for (const [at, body] of forms.entries()) {
    try {
      return { answer: await send(body), body };
    } catch (error) {
      const reason = refusedBody(error);
      if (!reason || at === forms.length - 1) throw error;
      refused(at, reason);
    }
  }
  throw new Error('no form of the message to send');
}
