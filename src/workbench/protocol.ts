// The contract between the workbench page (browser) and the workbench server (in the bot's process).
// The server is the stand-in for Slack: it serves the Web API the bot calls, keeps every message,
// modal and App Home view in the store, and turns the person's clicks into signed Slack requests to
// /slack/events. The page only renders this state and posts what the person did. Types only.
import type { Block, KnownBlock, View } from '@slack/types';

/** All page routes live under this prefix; the page itself is served at `/`. */
export const WORKBENCH_PREFIX = '/workbench';

export type Environment = 'SANDBOX' | 'TEST';

export interface WorkbenchUser {
  id: string; // Slack-shaped user id, e.g. U0ADA
  name: string; // "Ada"
  role: string; // "treasury operations, requester" | "approver" | "reads only, not an approver"
}

export interface WorkbenchChannel {
  id: string; // C0TREASURY, C0APPROVALS, C0ALERTS; DMs are D<userId>
  name: string; // "treasury", "approvals", "alerts"; a DM is named after the bot
  kind: 'channel' | 'dm';
}

export interface WorkbenchMessage {
  channel: string;
  ts: string;
  /** Bot messages have `bot: true`; a person's plain message has their user id. */
  user?: string;
  bot?: boolean;
  text: string;
  blocks?: Array<KnownBlock | Block>;
  thread_ts?: string;
  /** Set on a thread's parent. */
  reply_count?: number;
  /** Set once chat.update changed it. */
  edited?: boolean;
  /** Ephemeral messages are shown only to this user, marked "Only visible to you". */
  visibleTo?: string;
  /** Files shared with the message (files.completeUploadExternal), each downloadable from `url`. */
  files?: WorkbenchFile[];
}

/** A file the bot uploaded (files.uploadV2); the bytes stay in the store, served at `url`. */
export interface WorkbenchFile {
  id: string; // F…
  name: string; // the filename
  title: string;
  size: number; // bytes
  url: string; // the workbench's download link (loopback only)
  /** An image's description for screen readers, as the bot gave it (alt_text). */
  alt?: string;
  /** A PNG's picture, served by the page's own server (its policy loads images from there only). */
  preview?: string;
}

/** GET /workbench/api/files/<id>/preview — a shared PNG's bytes, as an image. */
export const filePreviewPath = (id: string) =>
  `${WORKBENCH_PREFIX}/api/files/${encodeURIComponent(id)}/preview`;

/** An open modal; `stack` is bottom → top (views.push adds, views.update replaces in place). */
export interface WorkbenchModal {
  id: string; // view id, V…
  hash: string;
  view: View;
  /** response_action: errors → block_id → message, shown under the input. */
  errors?: Record<string, string>;
}

/** GET /workbench/api/state?user=U… — everything the page shows for that person. */
export interface WorkbenchState {
  environment: Environment;
  sandbox: boolean; // the sandbox panel is shown only when true
  /** The sandbox panel's "Require passkeys": every approval is signed with a passkey (absent: approvals are off). */
  passkeysRequired?: boolean;
  bot: { id: string; name: string };
  users: WorkbenchUser[];
  channels: WorkbenchChannel[]; // #treasury, #approvals, #alerts, then the DM with the bot
  /** Channel id → messages visible to the user, oldest first (thread replies included, with thread_ts). */
  messages: Record<string, WorkbenchMessage[]>;
  /** This user's modal stack (empty when none is open). */
  modals: WorkbenchModal[];
  /** This user's App Home as published with views.publish, if any. */
  home: View | undefined;
  /** Bumped on every change; SSE sends it so the page refetches. */
  version: number;
}

/** GET /workbench/api/events — server-sent events: `data: {"version": n}` on every change. */
export interface WorkbenchChange {
  version: number;
}

// ---- What the person does (POST, JSON bodies; each answers WorkbenchAnswer) ----

/** POST /workbench/api/command — `/cngn …` typed in a channel (a signed slash command). */
export interface CommandInput {
  user: string;
  channel: string;
  /** The whole line as typed, e.g. "/cngn withdraw 1500". */
  text: string;
}

/** POST /workbench/api/message — a plain message (kept in the channel; the bot may not answer). */
export interface MessageInput {
  user: string;
  channel: string;
  text: string;
  thread_ts?: string;
}

/** POST /workbench/api/action — a button, select or overflow in a message, modal or App Home. */
export interface ActionInput {
  user: string;
  /** Where the element is. */
  container:
    | { type: 'message'; channel: string; ts: string }
    | { type: 'view'; view_id: string }
    | { type: 'home' };
  block_id: string;
  action_id: string;
  /** Button value, or the selected option's value for selects. */
  value?: string;
}

/** POST /workbench/api/view/submit — the modal's submit button; values keyed as Slack does. */
export interface SubmitInput {
  user: string;
  view_id: string;
  /**
   * block_id → action_id → value, in the page's words: plain text as string; static/external
   * select as the chosen option's value; checkboxes as the checked values; radio as the value.
   * The server builds Slack's `view.state.values` shapes from these and the view's own blocks.
   */
  values: Record<string, Record<string, string | string[] | null>>;
}

/** POST /workbench/api/view/close — the modal's close button or Escape. */
export interface CloseInput {
  user: string;
  view_id: string;
}

/** POST /workbench/api/suggest — type-ahead in an external select (a signed block_suggestion). */
export interface SuggestInput {
  user: string;
  view_id: string;
  block_id: string;
  action_id: string;
  value: string;
}
/** Answer of /suggest. */
export interface SuggestAnswer {
  options: Array<{ text: string; value: string }>;
}

/** POST /workbench/api/home — the person opened App Home (a signed app_home_opened event). */
export interface HomeInput {
  user: string;
}

/**
 * POST /workbench/api/sandbox/{pay|crypto-deposit|settle|fail-next-redemption} — the sandbox panel.
 * pay: { account?: string; amount?: string } (latest temporary account when none is named);
 * crypto-deposit: { amount: string; network?: string }; settle and fail-next-redemption: {}.
 */
export type SandboxAction = 'pay' | 'crypto-deposit' | 'settle' | 'fail-next-redemption';

/**
 * POST /workbench/api/sandbox/passkeys { required: boolean } — the sandbox panel's "Require passkeys":
 * the running bot's signing rule switched between all and off. Answers { passkeysRequired }.
 */
export interface PasskeysInput {
  required: boolean;
}

/** What the workbench is given to switch the running bot's signing rule (the embedded sandbox only). */
export interface PasskeyRule {
  /** Must approvals be signed now (the rule is not off)? */
  required(): boolean;
  /** Switch the rule to all (true) or off (false), on the audit record first; false when it cannot be switched here. */
  require(on: boolean): Promise<boolean>;
}

/** Every POST answers this; `error` is a sentence for the page to show (e.g. Slack's error name). */
export interface WorkbenchAnswer {
  ok: boolean;
  error?: string;
  version?: number;
}
