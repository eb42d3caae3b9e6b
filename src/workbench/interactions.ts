// The person's side of Slack: what someone does on the page becomes the request Slack would send the
// app — a slash command, block_actions, view_submission, view_closed, block_suggestion or an
// app_home_opened event — with Slack's payload shapes (typed from Bolt's), signed with v0 HMAC
// under the signing secret this workbench made, and POSTed to the bot's /slack/events. The ack is
// read as Slack reads it: a command's ack body is an ephemeral answer, a submission's ack carries
// its response_action, a suggestion's ack its options. Slack waits 3 s for an ack, and so does this.
import { createHmac, randomBytes } from 'node:crypto';
import type {
  BlockAction,
  BlockSuggestion,
  EnvelopedEvent,
  SlashCommand,
  ViewClosedAction,
  ViewSubmitAction,
} from '@slack/bolt';
import type { AppHomeOpenedEvent, View } from '@slack/types';
import { request } from 'undici';
import { z } from 'zod';
import type { Logger } from '../log.js';
import type { Book } from './book.js';
import { newId } from './book.js';
import { APP_ID, BOT, dmOf, resolveChannel, TEAM, userById } from './people.js';
import type {
  ActionInput,
  CloseInput,
  CommandInput,
  HomeInput,
  MessageInput,
  SubmitInput,
  SuggestAnswer,
  SuggestInput,
  WorkbenchMessage,
  WorkbenchModal,
} from './protocol.js';
import { checkView, SlackRefusal, type Triggers } from './slack-rules.js';
import { elementState, elementsOf, isEmpty, optionsOf, stateValues, viewOutput, withIds } from './views.js';

/** Slack waits this long for the app's acknowledgement. */
export const ACK_TIMEOUT_MS = 3_000;
/** The legacy verification token Slack still puts in payloads (Bolt does not check it). */
const VERIFICATION_TOKEN = 'workbench-verification-token';
const REQUIRED = 'Please complete this required field.';

type Option = { text: { type: string; text: string }; value: string };

export interface InteractionsOptions {
  book: Book;
  triggers: Triggers;
  signingSecret: string;
  /** The bot's base URL (its /slack/events), known once it listens. */
  botUrl: () => string;
  responseUrl: (token: string) => string;
  logger: Logger;
}

/** A problem to show the person: the page shows `message`; Slack's error name when there is one. */
export class PageError extends Error {
  override name = 'PageError';
}

const optionsAck = z.object({
  options: z.array(z.object({ text: z.object({ text: z.string() }), value: z.string() })).optional(),
  option_groups: z
    .array(
      z.object({ options: z.array(z.object({ text: z.object({ text: z.string() }), value: z.string() })) }),
    )
    .optional(),
});
const submissionAck = z.discriminatedUnion('response_action', [
  z.object({ response_action: z.literal('errors'), errors: z.record(z.string(), z.string()) }),
  z.object({ response_action: z.literal('update'), view: z.unknown() }),
  z.object({ response_action: z.literal('push'), view: z.unknown() }),
  z.object({ response_action: z.literal('clear') }),
]);
const messageAck = z.looseObject({
  text: z.string().optional(),
  blocks: z.array(z.unknown()).optional(),
  response_type: z.enum(['ephemeral', 'in_channel']).optional(),
});

export class Interactions {
  /** Options an external select has offered, so a submitted choice carries its text. */
  private readonly suggested = new Map<string, Option[]>();

  constructor(private readonly options: InteractionsOptions) {}

  private person(id: string) {
    const user = userById(id);
    if (!user) throw new PageError(`Unknown user ${id}`);
    return {
      id: user.id,
      username: user.name.toLowerCase(),
      name: user.name.toLowerCase(),
      team_id: TEAM.id,
    };
  }

  private async send(
    body: string,
    contentType: string,
  ): Promise<{ status: number; text: string; json: boolean }> {
    const timestamp = Math.floor(Date.now() / 1000);
    const signature = `v0=${createHmac('sha256', this.options.signingSecret).update(`v0:${timestamp}:${body}`).digest('hex')}`;
    try {
      const response = await request(`${this.options.botUrl()}/slack/events`, {
        method: 'POST',
        headers: {
          'content-type': contentType,
          'x-slack-request-timestamp': String(timestamp),
          'x-slack-signature': signature,
          'user-agent': 'Slackbot 1.0 (+https://api.slack.com/robots)',
        },
        body,
        signal: AbortSignal.timeout(ACK_TIMEOUT_MS),
      });
      const text = await response.body.text();
      const json = String(response.headers['content-type'] ?? '').includes('json');
      if (response.statusCode !== 200) {
        throw new SlackRefusal('dispatch_failed', [`the app answered HTTP ${response.statusCode}`]);
      }
      return { status: response.statusCode, text, json };
    } catch (error) {
      if (error instanceof SlackRefusal) throw error;
      if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
        throw new SlackRefusal('operation_timeout', ['the app did not acknowledge within 3 seconds']);
      }
      throw new SlackRefusal('dispatch_failed', [error instanceof Error ? error.message : String(error)]);
    }
  }

  private sendForm(fields: Record<string, string>) {
    return this.send(new URLSearchParams(fields).toString(), 'application/x-www-form-urlencoded');
  }

  private sendPayload(payload: object) {
    return this.sendForm({ payload: JSON.stringify(payload) });
  }

  // ---- slash command ----

  async command(input: CommandInput): Promise<void> {
    const user = this.person(input.user);
    const channel = this.channel(input.channel, input.user);
    const line = input.text.trim();
    const match = /^(\/\S+)\s*([\s\S]*)$/.exec(line);
    if (!match) throw new PageError('A command starts with /, e.g. /cngn help');
    const [, command = '', text = ''] = match;
    if (command !== '/cngn')
      throw new PageError(`${command} is not a valid command. In the workbench, only /cngn is.`);
    const token = await this.options.book.newResponseUrl({ user: user.id, channel: channel.id });
    const payload: SlashCommand = {
      token: VERIFICATION_TOKEN,
      team_id: TEAM.id,
      team_domain: TEAM.domain,
      channel_id: channel.id,
      channel_name: channel.name,
      user_id: user.id,
      user_name: user.username,
      command,
      text,
      api_app_id: APP_ID,
      is_enterprise_install: 'false',
      response_url: this.options.responseUrl(token),
      trigger_id: this.options.triggers.issue(user.id),
    };
    const ack = await this.sendForm(payload as unknown as Record<string, string>).catch((error: unknown) => {
      if (error instanceof SlackRefusal)
        throw new PageError(`${command} failed with the error "${error.error}"`);
      throw error;
    });
    await this.storeAckMessage(ack, user.id, channel.id);
  }

  /** A command's ack with a body is the app's answer: ephemeral unless it says in_channel. */
  private async storeAckMessage(ack: { text: string; json: boolean }, user: string, channel: string) {
    if (!ack.text.trim()) return;
    const parsed = ack.json ? messageAck.safeParse(safeJson(ack.text)) : undefined;
    const body = parsed?.success ? parsed.data : { text: ack.text };
    await this.options.book.post({
      channel,
      bot: true,
      text: body.text ?? '',
      ...(body.blocks?.length
        ? { blocks: withIds(body.blocks as NonNullable<WorkbenchMessage['blocks']>) }
        : {}),
      ...('response_type' in body && body.response_type === 'in_channel' ? {} : { visibleTo: user }),
    });
  }

  /** A channel the user may type in (the three channels, their own DM, any other the bot posts to). */
  private channel(id: string, user: string) {
    const channel = resolveChannel(id);
    if (!channel || (id.startsWith('D') && id !== dmOf(user)) || id.startsWith('U')) {
      throw new PageError(`No channel ${id} for this user`);
    }
    return channel;
  }

  // ---- plain message ----

  async message(input: MessageInput): Promise<void> {
    const user = this.person(input.user);
    const channel = this.channel(input.channel, input.user);
    if (!input.text.trim()) throw new PageError('Type a message first');
    // Kept in the channel like any message; the app subscribes to no message events, so Slack would
    // not send it one either.
    await this.options.book.post({
      channel: channel.id,
      user: user.id,
      text: input.text,
      ...(input.thread_ts ? { thread_ts: input.thread_ts } : {}),
    });
  }

  // ---- block_actions ----

  async action(input: ActionInput): Promise<void> {
    const user = this.person(input.user);
    const base = {
      type: 'block_actions' as const,
      user,
      api_app_id: APP_ID,
      token: VERIFICATION_TOKEN,
      team: { id: TEAM.id, domain: TEAM.domain },
      enterprise: undefined,
      is_enterprise_install: false,
      trigger_id: this.options.triggers.issue(user.id),
    };
    const container = input.container;
    if (container.type === 'message') {
      const message = await this.options.book.message(container.channel, container.ts);
      if (!message || (message.visibleTo && message.visibleTo !== user.id)) {
        throw new PageError('That message is no longer there');
      }
      const channel = this.channel(container.channel, user.id);
      const found = this.find(message.blocks ?? [], input);
      const token = await this.options.book.newResponseUrl({
        user: user.id,
        channel: channel.id,
        messageTs: message.ts,
      });
      const payload: BlockAction = {
        ...base,
        container: {
          type: 'message',
          message_ts: message.ts,
          channel_id: channel.id,
          is_ephemeral: Boolean(message.visibleTo),
        },
        channel: { id: channel.id, name: channel.name },
        message: {
          type: 'message',
          ts: message.ts,
          text: message.text,
          ...(message.bot ? { user: BOT.id, bot_id: BOT.botId } : { user: message.user }),
          ...(message.blocks ? { blocks: message.blocks } : {}),
          ...(message.thread_ts ? { thread_ts: message.thread_ts } : {}),
        },
        state: { values: stateValues(message.blocks ?? []) },
        response_url: this.options.responseUrl(token),
        actions: [this.actionOf(found, input)],
      };
      await this.sendPayload(payload).catch(this.asPageError);
      return;
    }
    const { modal, stack } =
      container.type === 'view'
        ? await this.modalOrHome(user.id, container.view_id)
        : await this.homeOf(user.id);
    const found = this.find(modal.view.blocks, input);
    // Slack sends no response_url for clicks in a view.
    const payload: Omit<BlockAction, 'response_url'> = {
      ...base,
      container: { type: 'view', view_id: modal.id },
      view: viewOutput(modal, { root: stack[0]?.id, previous: stack[stack.indexOf(modal) - 1]?.id }),
      actions: [this.actionOf(found, input)],
    };
    await this.sendPayload(payload).catch(this.asPageError);
  }

  private asPageError = (error: unknown): never => {
    if (error instanceof SlackRefusal) throw new PageError(`The app did not answer: ${error.error}`);
    throw error;
  };

  private find(blocks: View['blocks'], input: { block_id: string; action_id: string }) {
    const found = elementsOf(blocks).find(
      (e) => e.blockId === input.block_id && e.element.action_id === input.action_id,
    );
    if (!found) throw new PageError(`No element ${input.action_id} in block ${input.block_id}`);
    return found;
  }

  private actionOf(
    found: ReturnType<Interactions['find']>,
    input: ActionInput,
  ): BlockAction['actions'][number] {
    const { element, blockId } = found;
    const common = {
      action_id: element.action_id ?? '',
      block_id: blockId,
      action_ts: (Date.now() / 1000).toFixed(6),
    };
    if (element.type === 'button') {
      return {
        ...common,
        type: 'button',
        text: element.text as { type: 'plain_text'; text: string },
        ...(element.value !== undefined ? { value: element.value as string } : {}),
        ...(element.style ? { style: element.style as 'primary' | 'danger' } : {}),
      };
    }
    if (element.type === 'overflow') {
      const option = optionsOf(element).find((o) => o.value === input.value);
      if (!option) throw new PageError(`No option ${input.value ?? ''} in that menu`);
      return {
        ...common,
        type: 'overflow',
        selected_option: { text: { type: 'plain_text', text: option.text.text }, value: option.value },
      };
    }
    const state = elementState(
      element,
      input.value ?? null,
      this.suggested.get(`|${blockId}|${element.action_id}`) ?? [],
    );
    return { ...common, ...(state ?? {}), type: element.type } as unknown as BlockAction['actions'][number];
  }

  private async modalOrHome(
    user: string,
    viewId: string,
  ): Promise<{ modal: WorkbenchModal; stack: WorkbenchModal[] }> {
    const stack = await this.options.book.modals(user);
    const modal = stack.find((m) => m.id === viewId);
    if (modal) return { modal, stack };
    const home = await this.options.book.home(user);
    if (home?.id === viewId) return { modal: { id: home.id, hash: home.hash, view: home }, stack: [] };
    throw new PageError('That view is no longer open');
  }

  private async homeOf(user: string) {
    const home = await this.options.book.home(user);
    if (!home) throw new PageError('The app has not published an App Home');
    return {
      modal: { id: home.id, hash: home.hash, view: home } as WorkbenchModal,
      stack: [] as WorkbenchModal[],
    };
  }

  // ---- view_submission ----

  async submit(input: SubmitInput): Promise<void> {
    const user = this.person(input.user);
    const stack = await this.options.book.modals(user.id);
    const index = stack.findIndex((m) => m.id === input.view_id);
    const modal = stack[index];
    if (!modal) throw new PageError('That form is no longer open');
    const blocks = modal.view.blocks;
    const values = stateValues(
      blocks,
      input.values,
      (b, a) => this.suggested.get(`${modal.id}|${b}|${a}`) ?? [],
    );
    // Slack's client refuses an empty required input itself; the app never hears of it.
    const missing: Record<string, string> = {};
    for (const { blockId, element, input: isInput, optional } of elementsOf(blocks)) {
      const state = values[blockId]?.[element.action_id ?? ''];
      if (isInput && !optional && state && isEmpty(state)) missing[blockId] = REQUIRED;
    }
    if (Object.keys(missing).length) {
      await this.setErrors(user.id, modal.id, missing);
      return;
    }
    const payload: ViewSubmitAction = {
      type: 'view_submission',
      team: { id: TEAM.id, domain: TEAM.domain },
      user: { id: user.id, name: user.name, team_id: TEAM.id },
      view: viewOutput(modal, { root: stack[0]?.id, previous: stack[index - 1]?.id, values }),
      api_app_id: APP_ID,
      token: VERIFICATION_TOKEN,
      trigger_id: this.options.triggers.issue(user.id),
      is_enterprise_install: false,
      response_urls: [],
    };
    const ack = await this.sendPayload({
      ...payload,
      user: { ...payload.user, username: user.username },
    }).catch(this.asPageError);
    if (!ack.text.trim()) {
      // An empty ack closes the submitted view (and any pushed above it).
      await this.options.book.changeModals(user.id, (current) => ({
        stack: current.slice(
          0,
          Math.max(
            0,
            current.findIndex((m) => m.id === modal.id),
          ),
        ),
        answer: undefined,
      }));
      return;
    }
    const parsed = submissionAck.safeParse(safeJson(ack.text));
    if (!parsed.success)
      throw new PageError('The app answered the form with something Slack would not accept');
    const answer = parsed.data;
    if (answer.response_action === 'errors') return this.setErrors(user.id, modal.id, answer.errors);
    if (answer.response_action === 'clear') {
      await this.options.book.changeModals(user.id, () => ({ stack: [], answer: undefined }));
      return;
    }
    try {
      checkView(answer.view, 'modal');
    } catch (error) {
      if (error instanceof SlackRefusal)
        throw new PageError(`The app's ${answer.response_action} view was refused: ${error.message}`);
      throw error;
    }
    const view = structuredClone(answer.view) as View;
    view.blocks = withIds(view.blocks);
    const problem = await this.options.book.changeModals(user.id, (current) => {
      const at = current.findIndex((m) => m.id === modal.id);
      if (at < 0) return { stack: current, answer: 'That form is no longer open' };
      if (answer.response_action === 'update') {
        const next = [...current];
        next[at] = { id: modal.id, hash: newHash(), view };
        return { stack: next, answer: undefined };
      }
      if (current.length >= 3) return { stack: current, answer: 'push_limit_reached' };
      return { stack: [...current, { id: newId('V'), hash: newHash(), view }], answer: undefined };
    });
    if (problem) throw new PageError(problem);
  }

  private setErrors(user: string, viewId: string, errors: Record<string, string>) {
    return this.options.book.changeModals(user, (stack) => ({
      stack: stack.map((m) => (m.id === viewId ? { ...m, errors } : m)),
      answer: undefined,
    }));
  }

  // ---- view_closed ----

  async close(input: CloseInput): Promise<void> {
    const user = this.person(input.user);
    const stack = await this.options.book.modals(user.id);
    const index = stack.findIndex((m) => m.id === input.view_id);
    const modal = stack[index];
    if (!modal) return; // already closed
    const view = modal.view as View & { notify_on_close?: boolean; clear_on_close?: boolean };
    await this.options.book.changeModals(user.id, (current) => ({
      stack: view.clear_on_close
        ? []
        : current.slice(
            0,
            Math.max(
              0,
              current.findIndex((m) => m.id === modal.id),
            ),
          ),
      answer: undefined,
    }));
    if (!view.notify_on_close) return;
    const payload: ViewClosedAction = {
      type: 'view_closed',
      team: { id: TEAM.id, domain: TEAM.domain },
      user: { id: user.id, name: user.name, team_id: TEAM.id },
      view: viewOutput(modal, { root: stack[0]?.id, previous: stack[index - 1]?.id }),
      api_app_id: APP_ID,
      token: VERIFICATION_TOKEN,
      is_cleared: Boolean(view.clear_on_close),
      is_enterprise_install: false,
    };
    await this.sendPayload(payload).catch(this.asPageError);
  }

  // ---- block_suggestion ----

  async suggest(input: SuggestInput): Promise<SuggestAnswer> {
    const user = this.person(input.user);
    const { modal, stack } = await this.modalOrHome(user.id, input.view_id);
    this.find(modal.view.blocks, input);
    const payload: BlockSuggestion = {
      type: 'block_suggestion',
      user: { id: user.id, name: user.name, team_id: TEAM.id },
      container: { type: 'view', view_id: modal.id },
      api_app_id: APP_ID,
      token: VERIFICATION_TOKEN,
      action_id: input.action_id,
      block_id: input.block_id,
      value: input.value,
      team: { id: TEAM.id, domain: TEAM.domain },
      view: viewOutput(modal, { root: stack[0]?.id }),
      is_enterprise_install: false,
    };
    const ack = await this.sendPayload(payload).catch(this.asPageError);
    const parsed = optionsAck.safeParse(safeJson(ack.text || '{}'));
    if (!parsed.success)
      throw new PageError('The app answered the search with something Slack would not accept');
    const options = [
      ...(parsed.data.options ?? []),
      ...(parsed.data.option_groups ?? []).flatMap((g) => g.options),
    ];
    const key = `${modal.id}|${input.block_id}|${input.action_id}`;
    const seen = this.suggested.get(key) ?? [];
    for (const o of options) {
      if (!seen.some((s) => s.value === o.value))
        seen.push({ text: { type: 'plain_text', text: o.text.text }, value: o.value });
    }
    this.suggested.set(key, seen.slice(-500));
    return { options: options.map((o) => ({ text: o.text.text, value: o.value })) };
  }

  // ---- app_home_opened ----

  async home(input: HomeInput): Promise<void> {
    const user = this.person(input.user);
    const home = await this.options.book.home(user.id);
    const now = Date.now() / 1000;
    const event: AppHomeOpenedEvent = {
      type: 'app_home_opened',
      user: user.id,
      channel: dmOf(user.id),
      tab: 'home',
      ...(home ? { view: home } : {}),
      event_ts: now.toFixed(6),
    };
    const envelope: EnvelopedEvent<AppHomeOpenedEvent> = {
      token: VERIFICATION_TOKEN,
      team_id: TEAM.id,
      context_team_id: TEAM.id,
      api_app_id: APP_ID,
      event,
      type: 'event_callback',
      event_id: newId('Ev', 6),
      event_time: Math.floor(now),
      is_ext_shared_channel: false,
      authorizations: [
        {
          enterprise_id: null,
          team_id: TEAM.id,
          user_id: BOT.id,
          is_bot: true,
          is_enterprise_install: false,
        },
      ],
    };
    await this.send(JSON.stringify(envelope), 'application/json').catch(this.asPageError);
  }
}

const newHash = () => `${Math.floor(Date.now() / 1000)}.${randomBytes(4).toString('hex')}`;

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
