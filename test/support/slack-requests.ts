// Correctly signed Slack requests (slash commands, interactivity, options) sent to the real Bolt
// HTTP receiver at `${baseUrl}/slack/events`.
import { createHmac } from 'node:crypto';
import { request } from 'undici';
import type { FakeSlack, SlackCall } from './fake-slack.js';

export interface SlackSender {
  baseUrl: string;
  signingSecret: string;
}

let triggers = 0;
/** A trigger_id carrying its issue time (`<n>.<epochMs>`), so the fake Slack can expire it after 3 s. */
export function newTriggerId(issuedAt = Date.now()): string {
  triggers += 1;
  return `${triggers}.${issuedAt}`;
}

/**
 * The age of a trigger_id issued by newTriggerId; undefined for any other form, which the fake Slack
 * accepts as fresh.
 */
export function triggerAgeMs(triggerId: unknown, now = Date.now()): number | undefined {
  const issued = typeof triggerId === 'string' ? /^\d+\.(\d{13})$/.exec(triggerId)?.[1] : undefined;
  return issued === undefined ? undefined : now - Number(issued);
}

export interface SlackResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  json: () => unknown;
}

export function signSlackBody(
  signingSecret: string,
  body: string,
  timestamp = Math.floor(Date.now() / 1000),
) {
  const signature = `v0=${createHmac('sha256', signingSecret).update(`v0:${timestamp}:${body}`).digest('hex')}`;
  return { 'x-slack-request-timestamp': String(timestamp), 'x-slack-signature': signature };
}

export async function postSigned(
  sender: SlackSender,
  body: string,
  options: {
    timestamp?: number;
    signature?: string;
    contentType?: string;
    /** More headers, e.g. slackRetry(1) on a delivery Slack sends again. */
    headers?: Record<string, string>;
  } = {},
): Promise<SlackResponse> {
  const headers: Record<string, string> = {
    'content-type': options.contentType ?? 'application/x-www-form-urlencoded',
    ...options.headers,
    ...signSlackBody(sender.signingSecret, body, options.timestamp),
  };
  if (options.signature !== undefined) headers['x-slack-signature'] = options.signature;
  const response = await request(`${sender.baseUrl}/slack/events`, { method: 'POST', headers, body });
  const text = await response.body.text();
  return {
    status: response.statusCode,
    headers: response.headers,
    body: text,
    json: () => (text ? JSON.parse(text) : undefined),
  };
}

export interface SlashCommandOptions {
  text?: string;
  userId?: string;
  userName?: string;
  channelId?: string;
  responseUrl: string;
  triggerId?: string;
  timestamp?: number;
  signature?: string;
}

/** The headers Slack adds when it sends a delivery again because no answer came in time. */
export const slackRetry = (num: number, reason = 'http_timeout') => ({
  'x-slack-retry-num': String(num),
  'x-slack-retry-reason': reason,
});

export function slashCommand(sender: SlackSender, options: SlashCommandOptions): Promise<SlackResponse> {
  return postSigned(sender, slashCommandBody(options), {
    timestamp: options.timestamp,
    signature: options.signature,
  });
}

let answers = 0;
/**
 * `/cngn <text>` from `userId` (default UREQ), acknowledged, and the first post to its own
 * response_url: where a command's private answer goes.
 */
export async function commandAnswer(
  bot: { sender: SlackSender; slack: FakeSlack },
  text: string,
  userId?: string,
): Promise<SlackCall> {
  const name = `command-answer-${++answers}`;
  const ack = await slashCommand(bot.sender, { text, userId, responseUrl: bot.slack.responseUrl(name) });
  if (ack.status !== 200) throw new Error(`/cngn ${text} was acknowledged with ${ack.status}: ${ack.body}`);
  return bot.slack.waitFor(`response_url:${name}`);
}

/** The form body of one slash command delivery, to send (again) with postSigned. */
export function slashCommandBody(options: Omit<SlashCommandOptions, 'timestamp' | 'signature'>): string {
  return new URLSearchParams({
    token: 'legacy-unused',
    team_id: 'T1',
    team_domain: 'treasury',
    channel_id: options.channelId ?? 'CCMD',
    channel_name: 'treasury',
    user_id: options.userId ?? 'UREQ',
    user_name: options.userName ?? 'requester',
    command: '/cngn',
    text: options.text ?? '',
    api_app_id: 'A1',
    response_url: options.responseUrl,
    trigger_id: options.triggerId ?? newTriggerId(),
  }).toString();
}

/** Interactivity: block_actions, view_submission, view_closed, block_suggestion all arrive as payload=. */
export function interaction(sender: SlackSender, payload: Record<string, unknown>): Promise<SlackResponse> {
  return postSigned(sender, interactionBody(payload));
}

/** The form body of one interaction delivery, to send (again) with postSigned. */
function interactionBody(payload: Record<string, unknown>): string {
  return new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
}

/** What a click carries: its action, who clicked, and where (a channel's message, a view). */
export interface BlockActionOptions {
  actionId: string;
  value?: string;
  blockId?: string;
  userId?: string;
  responseUrl?: string;
  channelId?: string;
  messageTs?: string;
  message?: Record<string, unknown>;
  selectedOption?: { value: string; text?: string };
  view?: Record<string, unknown>;
  /** Given, to find the modal the click opens (views.open carries it back). */
  triggerId?: string;
}

export function blockAction(sender: SlackSender, options: BlockActionOptions): Promise<SlackResponse> {
  return interaction(sender, blockActionPayload(options));
}

/** A click's block_actions payload, as Slack sends it over HTTP (form-encoded) or the socket. */
export function blockActionPayload(options: BlockActionOptions): Record<string, unknown> {
  const action: Record<string, unknown> = {
    action_id: options.actionId,
    block_id: options.blockId ?? 'block',
    type: options.selectedOption ? 'static_select' : 'button',
    action_ts: String(Date.now() / 1000),
  };
  if (options.value !== undefined) action.value = options.value;
  if (options.selectedOption) {
    action.selected_option = {
      value: options.selectedOption.value,
      text: { type: 'plain_text', text: options.selectedOption.text ?? options.selectedOption.value },
    };
  }
  return {
    type: 'block_actions',
    team: { id: 'T1', domain: 'treasury' },
    user: { id: options.userId ?? 'UREQ', username: 'someone', team_id: 'T1' },
    api_app_id: 'A1',
    trigger_id: options.triggerId ?? newTriggerId(),
    response_url: options.responseUrl,
    channel: options.channelId ? { id: options.channelId, name: 'approvals' } : undefined,
    container: options.messageTs
      ? { type: 'message', message_ts: options.messageTs, channel_id: options.channelId, is_ephemeral: false }
      : undefined,
    message: options.message ?? (options.messageTs ? { ts: options.messageTs, type: 'message' } : undefined),
    view: options.view,
    actions: [action],
  };
}

/**
 * A view_submission. `values` maps block_id → action_id → the element state, e.g.
 * `{ 'withdraw.amount': { 'withdraw.amount': { type: 'plain_text_input', value: '1500' } } }`.
 */
export interface ViewSubmissionOptions {
  callbackId: string;
  values: Record<string, Record<string, Record<string, unknown>>>;
  privateMetadata?: string;
  userId?: string;
  viewId?: string;
  /** The view's hash (Slack changes it with every update of the view). */
  hash?: string;
}

export function viewSubmission(sender: SlackSender, options: ViewSubmissionOptions): Promise<SlackResponse> {
  return postSigned(sender, viewSubmissionBody(options));
}

/** The form body of one view_submission delivery, to send (again) with postSigned. */
export function viewSubmissionBody(options: ViewSubmissionOptions): string {
  return interactionBody(viewSubmissionPayload(options));
}

/** A view_submission's payload, as Slack sends it over HTTP (form-encoded) or the socket. */
export function viewSubmissionPayload(options: ViewSubmissionOptions): Record<string, unknown> {
  return {
    type: 'view_submission',
    team: { id: 'T1', domain: 'treasury' },
    user: { id: options.userId ?? 'UREQ', username: 'someone', team_id: 'T1' },
    api_app_id: 'A1',
    trigger_id: newTriggerId(),
    view: {
      id: options.viewId ?? `V${Math.random().toString(36).slice(2)}`,
      type: 'modal',
      callback_id: options.callbackId,
      private_metadata: options.privateMetadata ?? '',
      hash: options.hash ?? 'h',
      state: { values: options.values },
    },
  };
}

/** Shorthand for a plain text input's state. */
export const textValue = (value: string) => ({ type: 'plain_text_input', value });
/** Shorthand for a static/external select's state. */
export const selectValue = (value: string) => ({
  type: 'static_select',
  selected_option: { value, text: { type: 'plain_text', text: value } },
});

/** The withdraw form's state as Slack submits it; the network as its id, or as the option shown. */
export function withdrawValues(form: {
  amount: string;
  network: string | { id: string; name: string };
  address: string;
  purpose?: string;
}): ViewSubmissionOptions['values'] {
  const network =
    typeof form.network === 'string'
      ? selectValue(form.network)
      : {
          type: 'static_select',
          selected_option: { value: form.network.id, text: { type: 'plain_text', text: form.network.name } },
        };
  return {
    'withdraw.amount': { 'withdraw.amount': textValue(form.amount) },
    'withdraw.network': { 'withdraw.network': network },
    'withdraw.address': { 'withdraw.address': textValue(form.address) },
    'withdraw.save': { 'withdraw.save': { type: 'checkboxes', selected_options: [] } },
    'withdraw.purpose': { 'withdraw.purpose': textValue(form.purpose ?? 'Supplier payout INV-2231') },
  };
}

/**
 * The redeem form's state as Slack submits it; the bank as its option's value (`code|name`) or as the
 * select's state, GTBank and account 0123456789 unless said.
 */
export function redeemValues(form: {
  amount: string;
  account?: string;
  bank?: string | ReturnType<typeof selectValue>;
  purpose?: string;
}): ViewSubmissionOptions['values'] {
  const bank = form.bank ?? '058|Guaranty Trust Bank';
  return {
    'redeem.amount': { 'redeem.amount': textValue(form.amount) },
    'redeem.bank': { 'redeem.bank': typeof bank === 'string' ? selectValue(bank) : bank },
    'redeem.account': { 'redeem.account': textValue(form.account ?? '0123456789') },
    'redeem.purpose': { 'redeem.purpose': textValue(form.purpose ?? 'Refund to customer') },
  };
}

export function optionsRequest(
  sender: SlackSender,
  options: {
    actionId: string;
    blockId?: string;
    value: string;
    userId?: string;
    view?: Record<string, unknown>;
  },
): Promise<SlackResponse> {
  return interaction(sender, {
    type: 'block_suggestion',
    team: { id: 'T1', domain: 'treasury' },
    user: { id: options.userId ?? 'UREQ', team_id: 'T1' },
    api_app_id: 'A1',
    action_id: options.actionId,
    block_id: options.blockId ?? options.actionId,
    value: options.value,
    view: options.view,
  });
}

/** An Events API delivery of `event`, stamped now. */
export function eventDelivery(sender: SlackSender, event: Record<string, unknown>): Promise<SlackResponse> {
  const body = JSON.stringify({
    token: 'legacy-unused',
    team_id: 'T1',
    api_app_id: 'A1',
    type: 'event_callback',
    event_id: `Ev${Math.random().toString(36).slice(2)}`,
    event_time: Math.floor(Date.now() / 1000),
    event: { ...event, event_ts: String(Date.now() / 1000) },
  });
  return postSigned(sender, body, { contentType: 'application/json' });
}

/** The Events API delivery Slack sends when `user` opens the app's Home tab. */
export function homeOpened(sender: SlackSender, user: string): Promise<SlackResponse> {
  return eventDelivery(sender, { type: 'app_home_opened', user, channel: `D${user}`, tab: 'home' });
}

/** The Events API delivery Slack sends when a member's account changes: `user` is the whole user object. */
export function userChanged(
  sender: SlackSender,
  user: { id: string } & Record<string, unknown>,
): Promise<SlackResponse> {
  return eventDelivery(sender, { type: 'user_change', user: { team_id: 'T1', ...user } });
}

/** A button clicked in the Home tab: a view container, no channel. */
export function clickInHome(
  sender: SlackSender,
  options: { actionId: string; value: string; userId: string; triggerId?: string },
): Promise<SlackResponse> {
  return interaction(sender, {
    type: 'block_actions',
    team: { id: 'T1', domain: 'treasury' },
    user: { id: options.userId, username: 'someone', team_id: 'T1' },
    api_app_id: 'A1',
    trigger_id: options.triggerId ?? newTriggerId(),
    container: { type: 'view', view_id: 'VHOME' },
    view: { id: 'VHOME', type: 'home', callback_id: '', private_metadata: '', hash: 'h' },
    actions: [
      {
        action_id: options.actionId,
        block_id: 'home.waiting',
        type: 'button',
        value: options.value,
        action_ts: String(Date.now() / 1000),
      },
    ],
  });
}
