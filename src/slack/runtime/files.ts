// Files sent privately to one person: a direct message opened with them (conversations.open, scope
// im:write), then files.uploadV2 (scope files:write), which asks Slack for an upload URL per file,
// posts the bytes there and completes the upload into that DM with one comment.
import type { WebClient } from '@slack/web-api';
import { escapeMrkdwn } from '../../format/mrkdwn.js';
import { SlackErrorCode } from './error-codes.js';

export interface FileToSend {
  filename: string;
  title: string;
  content: string;
}

export class SlackUploadError extends Error {
  override name = 'SlackUploadError';
  readonly code = SlackErrorCode.UploadRefused;
  constructor(readonly slackError: string) {
    super(`Slack refused the upload (${slackError})`);
  }
}

export async function sendFilesToUser(
  client: WebClient,
  user: string,
  files: FileToSend[],
  comment: string,
): Promise<void> {
  try {
    const dm = await client.conversations.open({ users: user });
    const channel = dm.channel?.id;
    if (!channel) throw new SlackUploadError('no direct message channel');
    await client.files.uploadV2({
      channel_id: channel,
      initial_comment: comment,
      file_uploads: files.map((f) => ({
        file: Buffer.from(f.content, 'utf8'),
        filename: f.filename,
        title: f.title,
      })),
    });
  } catch (error) {
    if (error instanceof SlackUploadError) throw error;
    const code = (error as { data?: { error?: unknown } }).data?.error;
    throw new SlackUploadError(typeof code === 'string' ? code : 'no answer');
  }
}

/** What the person who asked reads when the upload failed (mrkdwn). */
export function uploadFailureText(error: SlackUploadError): string {
  const scopes = /missing_scope|not_allowed_token_type|no_permission/.test(error.slackError)
    ? ' The app needs the `files:write` and `im:write` scopes: reinstall it from the manifest.'
    : ' Try again shortly.';
  return `${escapeMrkdwn(error.message)}; nothing was sent.${scopes}`;
}
