// The person's side of Slack: what someone does on the page becomes the request Slack would send the
// app — a slash command, block_actions, app_home_opened (and, in modal-interactions.ts,
// view_submission, view_closed and block_suggestion) — with Slack's payload shapes (typed from
// Bolt's), signed and POSTed to the bot's /slack/events (signed-requests.ts). A command's ack body
// is an answer only the person sees unless it says in_channel.
import type { BlockAction, EnvelopedEvent, SlashCommand } from '@slack/bolt';
import type { AppHomeOpenedEvent } from '@slack/types';
import { z } from 'zod';
import type { Logger } from '../log.js';
import { findElement, ModalInteractions, openView } from './modal-interactions.js';
import { APP_ID, BOT, dmOf, escapeCommandMentions, resolveChannel, TEAM } from './people.js';
import type {
  ActionInput,
  CloseInput,
  CommandInput,
  HomeInput,
  MessageInput,
  SubmitInput,
  SuggestInput,
  WorkbenchMessage,
  WorkbenchModal,
} from './protocol.js';
import { asPageError, PageError, personOf, SignedRequests, VERIFICATION_TOKEN } from './signed-requests.js';
import { SlackRefusal, type Triggers } from './slack-rules.js';
import { safeJson } from './slack-shapes.js';
import { elementState, optionsOf, stateValues, viewOutput, withIds } from './views.js';
import { newId, type Workspace } from './workspace.js';

export interface InteractionsOptions {
  workspace: Workspace;
  triggers: Triggers;
  signingSecret: string;
  /** The bot's base URL (its /slack/events), known once it listens. */
  botUrl: () => string;
  responseUrl: (token: string) => string;
  logger: Logger;
}

const messageAck = z.looseObject({
  text: z.string().optional(),
  blocks: z.array(z.unknown()).optional(),
  response_type: z.enum(['ephemeral', 'in_channel']).optional(),
});

export class Interactions {
  private readonly sender: SignedRequests;
  private readonly modals: ModalInteractions;

  constructor(private readonly options: InteractionsOptions) {
    this.sender = new SignedRequests(options.signingSecret, options.botUrl);
    this.modals = new ModalInteractions({
      workspace: options.workspace,
      triggers: options.triggers,
      sender: this.sender,
    });
  }

  submit = (input: SubmitInput) => this.modals.submit(input);
  close = (input: CloseInput) => this.modals.close(input);
  suggest = (input: SuggestInput) => this.modals.suggest(input);

  // ---- slash command ----

  async command(input: CommandInput): Promise<void> {
    const user = personOf(input.user);
    const channel = this.channel(input.channel, input.user);
    const line = input.text.trim();
    const match = /^(\/\S+)\s*([\s\S]*)$/.exec(line);
    if (!match) throw new PageError('A command starts with /, e.g. /cngn help');
    const [, command = '', text = ''] = match;
    if (command !== '/cngn')
      throw new PageError(`${command} is not a valid command. In the workbench, only /cngn is.`);
    const token = await this.options.workspace.newResponseUrl({ user: user.id, channel: channel.id });
    const payload: SlashCommand = {
      token: VERIFICATION_TOKEN,
      team_id: TEAM.id,
      team_domain: TEAM.domain,
      channel_id: channel.id,
      channel_name: channel.name,
      user_id: user.id,
      user_name: user.username,
      command,
      text: escapeCommandMentions(text),
      api_app_id: APP_ID,
      is_enterprise_install: 'false',
      response_url: this.options.responseUrl(token),
      trigger_id: this.options.triggers.issue(user.id),
    };
    const ack = await this.sender
      .form(payload as unknown as Record<string, string>)
      .catch((error: unknown) => {
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
    await this.options.workspace.post({
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
    const user = personOf(input.user);
    const channel = this.channel(input.channel, input.user);
    if (!input.text.trim()) throw new PageError('Type a message first');
    // Kept in the channel like any message; the app subscribes to no message events, so Slack would
    // not send it one either.
    await this.options.workspace.post({
      channel: channel.id,
      user: user.id,
      text: input.text,
      ...(input.thread_ts ? { thread_ts: input.thread_ts } : {}),
    });
  }

  // ---- block_actions ----

  async action(input: ActionInput): Promise<void> {
    const user = personOf(input.user);
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
      const message = await this.options.workspace.message(container.channel, container.ts);
      if (!message || (message.visibleTo && message.visibleTo !== user.id)) {
        throw new PageError('That message is no longer there');
      }
      const channel = this.channel(container.channel, user.id);
      const found = findElement(message.blocks ?? [], input);
      const token = await this.options.workspace.newResponseUrl({
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
        actions: [this.actionOf(found, '', input)],
      };
      await this.sender.payload(payload).catch(asPageError);
      return;
    }
    const { modal, stack } =
      container.type === 'view'
        ? await openView(this.options.workspace, user.id, container.view_id)
        : await this.homeOf(user.id);
    const found = findElement(modal.view.blocks, input);
    // Slack sends no response_url for clicks in a view.
    const payload: Omit<BlockAction, 'response_url'> = {
      ...base,
      container: { type: 'view', view_id: modal.id },
      view: viewOutput(modal, { root: stack[0]?.id, previous: stack[stack.indexOf(modal) - 1]?.id }),
      actions: [this.actionOf(found, modal.id, input)],
    };
    await this.sender.payload(payload).catch(asPageError);
  }

  private actionOf(
    found: ReturnType<typeof findElement>,
    viewId: string,
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
      this.modals.known(viewId, blockId, element.action_id ?? ''),
    );
    return { ...common, ...(state ?? {}), type: element.type } as unknown as BlockAction['actions'][number];
  }

  private async homeOf(user: string) {
    const home = await this.options.workspace.home(user);
    if (!home) throw new PageError('The app has not published an App Home');
    return {
      modal: { id: home.id, hash: home.hash, view: home } as WorkbenchModal,
      stack: [] as WorkbenchModal[],
    };
  }

  // ---- app_home_opened ----

  async home(input: HomeInput): Promise<void> {
    const user = personOf(input.user);
    const home = await this.options.workspace.home(user.id);
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
    await this.sender.send(JSON.stringify(envelope), 'application/json').catch(asPageError);
  }
}
