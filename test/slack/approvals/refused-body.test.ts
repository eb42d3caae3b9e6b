// Which of Slack's answers refuse a message's body itself, so the next, shorter form is tried: the
// documented ones and the blocks' total size Slack refuses without documenting its limit.
import { describe, expect, it } from 'vitest';
import { sendOrShort } from '../../../src/slack/approvals/refused-body.js';
import type { SlackMessage } from '../../../src/slack/types.js';

const platformError = (error: string) =>
  Object.assign(new Error(`An API error occurred: ${error}`), {
    code: 'slack_webapi_platform_error',
    data: { ok: false, error },
  });

const forms: SlackMessage[] = [
  { text: 'long', blocks: [] },
  { text: 'short', blocks: [] },
];

describe('sendOrShort', () => {
  it.each(['invalid_blocks', 'invalid_blocks_format', 'msg_too_long', 'msg_blocks_too_long'])(
    'tries the shorter form when Slack answers %s',
    async (error) => {
      const refusals: string[] = [];
      const sent = await sendOrShort(
        forms,
        async (body) => {
          if (body.text === 'long') throw platformError(error);
          return 'ok';
        },
        (_at, reason) => refusals.push(reason),
      );
      expect(sent.body.text).toBe('short');
      expect(refusals).toEqual([error]);
    },
  );

  it('sends no other form on another error: it is thrown', async () => {
    const tried: string[] = [];
    const sending = sendOrShort(
      forms,
      async (body) => {
        tried.push(String(body.text));
        throw platformError('channel_not_found');
      },
      () => {},
    );
    await expect(sending).rejects.toThrow('channel_not_found');
    expect(tried).toEqual(['long']);
  });
});
