// Shows each persisted step of a request in Slack: the approvals-channel message updated in place, a
// reply in its thread, and a private note to the requester for the steps that concern them.
// Runs after the engine has persisted the change, so a Slack failure never loses or repeats a step.
import type { WebClient } from '@slack/web-api';
import type { ApprovalEngine } from '../approvals/index.js';
import type { ApprovalRequest } from '../approvals/types.js';
import { KeyedMutex } from '../store/mutex.js';
import { approvalMessage, requesterNotice, stepText } from './blocks/approval-message.js';

export interface PresenterOptions {
  client: WebClient;
  channel: string;
  now?: () => Date;
  log?: { warn(message: string, fields?: Record<string, unknown>): void };
}

export function presentApprovals(engine: ApprovalEngine, options: PresenterOptions): void {
  const mutex = new KeyedMutex();
  const now = options.now ?? (() => new Date());
  const { client } = options;

  engine.onChange((request) =>
    mutex.run(request.id, async () => {
      // Render the newest stored state, so a late notification never paints an older picture.
      const latest = (await engine.get(request.id)) ?? request;
      const message = approvalMessage(latest, now());
      let where = latest.slackMessage;
      if (!where) {
        const posted = await client.chat.postMessage({ channel: options.channel, ...message });
        if (posted.ts && posted.channel) {
          where = { channel: posted.channel, ts: posted.ts };
          await engine.attachMessage(request.id, where.channel, where.ts);
        }
      } else {
        await client.chat.update({ channel: where.channel, ts: where.ts, ...message });
      }
      if (where && request.history.at(-1)?.action !== 'filed') {
        await client.chat.postMessage({
          channel: where.channel,
          thread_ts: where.ts,
          text: stepText(request),
        });
      }
      await tellRequester(client, request, options.log);
    }),
  );
}

async function tellRequester(client: WebClient, request: ApprovalRequest, log: PresenterOptions['log']) {
  const notice = requesterNotice(request);
  if (!notice) return;
  try {
    // Posting to a user id lands in the app's DM with them.
    await client.chat.postMessage({ channel: request.requester, text: notice });
  } catch (error) {
    log?.warn('could not tell the requester', { requestId: request.id, error: String(error) });
  }
}
