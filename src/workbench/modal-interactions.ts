// What a person does in a modal, as Slack sends it: view_submission (with state.values built from
// the view's own blocks and what was entered; a required input left empty stops in the client, as
// Slack's does), view_closed when the app asked for it, and block_suggestion for type-ahead. The
// ack is read as Slack reads it: a response_action (errors, update, push, clear) or the options.
import type { BlockSuggestion, ViewClosedAction, ViewSubmitAction } from '@slack/bolt';
import type { View } from '@slack/types';
import { z } from 'zod';
import { APP_ID, TEAM } from './people.js';
import type { CloseInput, SubmitInput, SuggestAnswer, SuggestInput, WorkbenchModal } from './protocol.js';
import {
  asPageError,
  PageError,
  personOf,
  type SignedRequests,
  VERIFICATION_TOKEN,
} from './signed-requests.js';
import { checkView, SlackRefusal } from './slack-rules.js';
import { newHash, safeJson } from './slack-shapes.js';
import { elementsOf, isEmpty, stateValues, viewOutput, withIds } from './views.js';
import { MAX_STACK } from './web-api-views.js';
import { newId, type Workspace } from './workspace.js';

/** What Slack's client says under a required input left empty. */
const REQUIRED = 'Please complete this required field.';

type Option = { text: { type: string; text: string }; value: string };

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

/** The element a click or search names, or the reason it is not there. */
export function findElement(blocks: View['blocks'], input: { block_id: string; action_id: string }) {
  const found = elementsOf(blocks).find(
    (e) => e.blockId === input.block_id && e.element.action_id === input.action_id,
  );
  if (!found) throw new PageError(`No element ${input.action_id} in block ${input.block_id}`);
  return found;
}

/** A view the person has open: one of their modals, or their App Home. */
export async function openView(
  workspace: Workspace,
  user: string,
  viewId: string,
): Promise<{ modal: WorkbenchModal; stack: WorkbenchModal[] }> {
  const stack = await workspace.modals(user);
  const modal = stack.find((m) => m.id === viewId);
  if (modal) return { modal, stack };
  const home = await workspace.home(user);
  if (home?.id === viewId) return { modal: { id: home.id, hash: home.hash, view: home }, stack: [] };
  throw new PageError('That view is no longer open');
}

export class ModalInteractions {
  /** Options an external select has offered, so a submitted choice carries its text. */
  private readonly suggested = new Map<string, Option[]>();

  constructor(
    private readonly options: {
      workspace: Workspace;
      triggers: { issue(user: string): string };
      sender: SignedRequests;
    },
  ) {}

  /** Options seen for this element of this view (type-ahead answers). */
  known(viewId: string, blockId: string, actionId: string): Option[] {
    return this.suggested.get(`${viewId}|${blockId}|${actionId}`) ?? [];
  }

  // ---- view_submission ----

  async submit(input: SubmitInput): Promise<void> {
    const user = personOf(input.user);
    const stack = await this.options.workspace.modals(user.id);
    const index = stack.findIndex((m) => m.id === input.view_id);
    const modal = stack[index];
    if (!modal) throw new PageError('That form is no longer open');
    const blocks = modal.view.blocks;
    const values = stateValues(blocks, input.values, (b, a) => this.known(modal.id, b, a));
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
    const ack = await this.options.sender
      .payload({
        ...payload,
        user: { ...payload.user, username: user.username },
      })
      .catch(asPageError);
    if (!ack.text.trim()) {
      // An empty ack closes the submitted view (and any pushed above it).
      await this.options.workspace.changeModals(user.id, (current) => ({
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
      await this.options.workspace.changeModals(user.id, () => ({ stack: [], answer: undefined }));
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
    const problem = await this.options.workspace.changeModals(user.id, (current) => {
      const at = current.findIndex((m) => m.id === modal.id);
      if (at < 0) return { stack: current, answer: 'That form is no longer open' };
      if (answer.response_action === 'update') {
        const next = [...current];
        next[at] = { id: modal.id, hash: newHash(), view };
        return { stack: next, answer: undefined };
      }
      if (current.length >= MAX_STACK) return { stack: current, answer: 'push_limit_reached' };
      return { stack: [...current, { id: newId('V'), hash: newHash(), view }], answer: undefined };
    });
    if (problem) throw new PageError(problem);
  }

  private setErrors(user: string, viewId: string, errors: Record<string, string>) {
    return this.options.workspace.changeModals(user, (stack) => ({
      stack: stack.map((m) => (m.id === viewId ? { ...m, errors } : m)),
      answer: undefined,
    }));
  }

  // ---- view_closed ----

  async close(input: CloseInput): Promise<void> {
    const user = personOf(input.user);
    const stack = await this.options.workspace.modals(user.id);
    const index = stack.findIndex((m) => m.id === input.view_id);
    const modal = stack[index];
    if (!modal) return; // already closed
    const view = modal.view as View & { notify_on_close?: boolean; clear_on_close?: boolean };
    await this.options.workspace.changeModals(user.id, (current) => ({
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
    await this.options.sender.payload(payload).catch(asPageError);
  }

  // ---- block_suggestion ----

  async suggest(input: SuggestInput): Promise<SuggestAnswer> {
    const user = personOf(input.user);
    const { modal, stack } = await openView(this.options.workspace, user.id, input.view_id);
    findElement(modal.view.blocks, input);
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
    const ack = await this.options.sender.payload(payload).catch(asPageError);
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
}
