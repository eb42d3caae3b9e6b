// Block Kit bookkeeping Slack does for the app: block and action IDs filled in where the app left them
// out, the view as Slack hands it back (ViewOutput), and `state.values` built from a view's own blocks
// and what the person entered (page values), in Slack's shapes per element type.
import { randomBytes } from 'node:crypto';
import type { ViewOutput, ViewStateSelectedOption, ViewStateValue } from '@slack/bolt';
import type { Block, KnownBlock, View } from '@slack/types';
import { APP_ID, BOT, TEAM } from './people.js';
import type { WorkbenchModal } from './protocol.js';

type AnyBlock = KnownBlock | Block;
type Element = { type: string; action_id?: string; [key: string]: unknown };
type Option = { text: { type: string; text: string }; value: string };

const shortId = () => randomBytes(3).toString('base64url');

/** Slack gives every block a block_id and every element an action_id when the app did not. */
export function withIds<T extends AnyBlock>(blocks: readonly T[]): T[] {
  return blocks.map((block) => {
    const b = structuredClone(block) as T & {
      block_id?: string;
      element?: Element;
      elements?: Element[];
      accessory?: Element;
    };
    b.block_id ??= shortId();
    const fill = (e: Element | undefined) => {
      if (e && typeof e === 'object' && 'type' in e && !['mrkdwn', 'plain_text', 'image'].includes(e.type)) {
        e.action_id ??= shortId();
      }
    };
    fill(b.element);
    fill(b.accessory);
    if (b.type === 'actions') for (const e of b.elements ?? []) fill(e);
    return b;
  });
}

/** Every interactive element of a block, with its block. */
export function elementsOf(
  blocks: readonly AnyBlock[],
): Array<{ blockId: string; element: Element; input: boolean; optional: boolean; label: string }> {
  const out: Array<{ blockId: string; element: Element; input: boolean; optional: boolean; label: string }> =
    [];
  for (const block of blocks as Array<
    AnyBlock & {
      block_id?: string;
      element?: Element;
      elements?: Element[];
      accessory?: Element;
      optional?: boolean;
      label?: { text: string };
    }
  >) {
    const blockId = block.block_id ?? '';
    if (block.type === 'input' && block.element) {
      out.push({
        blockId,
        element: block.element,
        input: true,
        optional: Boolean(block.optional),
        label: block.label?.text ?? '',
      });
    }
    if (block.type === 'section' && block.accessory) {
      out.push({ blockId, element: block.accessory, input: false, optional: true, label: '' });
    }
    if (block.type === 'actions') {
      for (const element of block.elements ?? [])
        out.push({ blockId, element, input: false, optional: true, label: '' });
    }
  }
  return out;
}

export function optionsOf(element: Element): Option[] {
  const flat = (element.options as Option[] | undefined) ?? [];
  const grouped = ((element.option_groups as Array<{ options: Option[] }> | undefined) ?? []).flatMap(
    (g) => g.options,
  );
  return [...flat, ...grouped];
}

const asSelected = (o: Option): ViewStateSelectedOption => ({
  text: { type: 'plain_text', text: o.text.text, emoji: true },
  value: o.value,
});

export type PageValue = string | string[] | null | undefined;

/**
 * One element's state in Slack's shape. `value` is the page's (undefined: untouched, so the
 * element's initial value stands); `known` are options seen for external selects (suggestions).
 */
export function elementState(
  element: Element,
  value: PageValue,
  known: Option[] = [],
): ViewStateValue | undefined {
  const type = element.type;
  switch (type) {
    case 'plain_text_input':
    case 'email_text_input':
    case 'url_text_input':
    case 'number_input': {
      const v = value === undefined ? (element.initial_value as string | undefined) : single(value);
      return { type, value: v === undefined || v === '' ? null : v };
    }
    case 'static_select':
    case 'external_select':
    case 'radio_buttons':
      return { type, selected_option: selectedOption(element, value, known) };
    case 'multi_static_select':
    case 'multi_external_select':
    case 'checkboxes':
      return { type, selected_options: selectedOptions(element, value, known) };
    case 'datepicker':
      return { type, selected_date: picked(element, value, 'initial_date') };
    case 'timepicker':
      return { type, selected_time: picked(element, value, 'initial_time') };
    case 'users_select':
      return { type, selected_user: picked(element, value, 'initial_user') };
    case 'conversations_select':
      return { type, selected_conversation: picked(element, value, 'initial_conversation') };
    case 'channels_select':
      return { type, selected_channel: picked(element, value, 'initial_channel') };
    default:
      return undefined; // buttons, overflow: no state
  }
}

const single = (v: PageValue) => (Array.isArray(v) ? v[0] : v);
const many = (v: PageValue) => (v === null || v === undefined ? [] : Array.isArray(v) ? v : [v]);

/** The option of this value among the element's and the suggestions seen; a bare one when unknown. */
function optionOf(element: Element, known: Option[], v: string): Option {
  return (
    [...optionsOf(element), ...known].find((o) => o.value === v) ?? {
      text: { type: 'plain_text', text: v },
      value: v,
    }
  );
}

function selectedOption(element: Element, value: PageValue, known: Option[]) {
  if (value === undefined) {
    const initial = element.initial_option as Option | undefined;
    return initial ? asSelected(initial) : null;
  }
  const v = single(value);
  return v ? asSelected(optionOf(element, known, v)) : null;
}

function selectedOptions(element: Element, value: PageValue, known: Option[]) {
  if (value === undefined) return ((element.initial_options as Option[] | undefined) ?? []).map(asSelected);
  return many(value).map((v) => asSelected(optionOf(element, known, v)));
}

/** A picker's value: the page's, or the element's initial one (`initial` names it). */
function picked(element: Element, value: PageValue, initial: string): string | null {
  return (value === undefined ? (element[initial] as string) : single(value)) ?? null;
}

/** Is this state empty (a required input left blank)? */
export const isEmpty = (s: ViewStateValue): boolean =>
  (s.value ?? null) === null &&
  !s.selected_option &&
  !s.selected_options?.length &&
  !s.selected_date &&
  !s.selected_time &&
  !s.selected_user &&
  !s.selected_conversation &&
  !s.selected_channel;

export type StateValues = ViewOutput['state']['values'];

/** `state.values` from a view's blocks and the page's values (block_id → action_id → value). */
export function stateValues(
  blocks: readonly AnyBlock[],
  values: Record<string, Record<string, PageValue>> = {},
  known: (blockId: string, actionId: string) => Option[] = () => [],
): StateValues {
  const out: StateValues = {};
  for (const { blockId, element } of elementsOf(blocks)) {
    const actionId = element.action_id ?? '';
    const state = elementState(element, values[blockId]?.[actionId], known(blockId, actionId));
    if (!state) continue;
    out[blockId] ??= {};
    (out[blockId] as Record<string, ViewStateValue>)[actionId] = state;
  }
  return out;
}

/** The view as Slack answers it and sends it in payloads. */
export function viewOutput(
  modal: Pick<WorkbenchModal, 'id' | 'hash' | 'view'>,
  stack: { root?: string | undefined; previous?: string | undefined; values?: StateValues } = {},
): ViewOutput {
  const view = modal.view as View & {
    title?: { type: 'plain_text'; text: string; emoji?: boolean };
    close?: { type: 'plain_text'; text: string; emoji?: boolean };
    submit?: { type: 'plain_text'; text: string; emoji?: boolean };
    notify_on_close?: boolean;
    clear_on_close?: boolean;
  };
  const plain = (t: typeof view.title) =>
    t ? { type: 'plain_text' as const, text: t.text, emoji: t.emoji ?? true } : null;
  return {
    id: modal.id,
    team_id: TEAM.id,
    app_installed_team_id: TEAM.id,
    app_id: APP_ID,
    bot_id: BOT.botId,
    type: view.type,
    callback_id: view.callback_id ?? '',
    title: plain(view.title) ?? { type: 'plain_text', text: '', emoji: true },
    close: plain(view.close),
    submit: plain(view.submit),
    blocks: view.blocks as AnyBlock[],
    state: { values: stack.values ?? stateValues(view.blocks as AnyBlock[]) },
    hash: modal.hash,
    private_metadata: view.private_metadata ?? '',
    root_view_id: stack.root ?? modal.id,
    previous_view_id: stack.previous ?? null,
    clear_on_close: Boolean(view.clear_on_close),
    notify_on_close: Boolean(view.notify_on_close),
    ...(view.external_id ? { external_id: view.external_id } : {}),
  };
}
