/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// The top modal of the person's stack as a dialog named by its title: read-only blocks through
// blocks.ts, input blocks as labelled form controls, errors from response_action under their input.
import type { InputBlock, KnownBlock, PlainTextOption, View } from '@slack/types';
import type { SuggestAnswer } from '../protocol.js';
import { type BlockContext, block, optionText } from './blocks.js';
import { h, uid } from './dom.js';
import { plainText } from './mrkdwn.js';

/** Slack shows at most 100 options of an external select's answer. */
const MAX_OPTIONS = 100;

type Value = string | string[] | null;
export type Values = Record<string, Record<string, Value>>;

export interface ModalHandlers extends BlockContext {
  submit(values: Values): void;
  close(): void;
  suggest(blockId: string, actionId: string, value: string): Promise<SuggestAnswer>;
}

/** A control that can say its value in the page's words (see SubmitInput). */
interface Field {
  blockId: string;
  actionId: string;
  read(): Value;
  write(value: Value): void;
  setError(message: string | undefined): void;
}

export interface ModalElement {
  dialog: HTMLDialogElement;
  values(): Values;
  setErrors(errors: Record<string, string> | undefined): void;
  restore(values: Values): void;
  setBusy(busy: boolean): void;
}

type Option = PlainTextOption;
interface Element {
  type: string;
  action_id?: string;
  placeholder?: { type: 'plain_text'; text: string };
  initial_value?: string;
  multiline?: boolean;
  max_length?: number;
  options?: Option[];
  option_groups?: Array<{ label: { type: 'plain_text'; text: string }; options: Option[] }>;
  initial_option?: Option;
  initial_options?: Option[];
  initial_date?: string;
  min_query_length?: number;
}

function allOptions(el: Element): Option[] {
  return el.options ?? el.option_groups?.flatMap((g) => g.options) ?? [];
}

function textControl(id: string, el: Element, required: boolean): HTMLInputElement | HTMLTextAreaElement {
  const attributes = {
    id,
    name: id,
    class: 'input',
    placeholder: el.placeholder ? plainText(el.placeholder) : null,
    maxlength: el.max_length ?? null,
    required,
  };
  if (el.multiline) {
    const area = h('textarea', { ...attributes, rows: 4 });
    area.value = el.initial_value ?? '';
    return area;
  }
  const types: Record<string, string> = {
    email_text_input: 'email',
    url_text_input: 'url',
    datepicker: 'date',
    timepicker: 'time',
  };
  const input = h('input', { ...attributes, type: types[el.type] ?? 'text' });
  input.value = el.initial_value ?? el.initial_date ?? '';
  return input;
}

function selectControl(id: string, el: Element, required: boolean): HTMLSelectElement {
  const multiple = el.type.startsWith('multi_');
  const initial = new Set([el.initial_option?.value, ...(el.initial_options ?? []).map((o) => o.value)]);
  const option = (o: Option) =>
    h('option', { value: o.value ?? '', selected: initial.has(o.value) }, optionText(o));
  const select = h(
    'select',
    { id, name: id, class: 'input', required, multiple },
    multiple
      ? null
      : h(
          'option',
          { value: '', selected: !el.initial_option },
          el.placeholder ? plainText(el.placeholder) : 'Choose…',
        ),
    el.option_groups
      ? el.option_groups.map((g) => h('optgroup', { label: plainText(g.label) }, g.options.map(option)))
      : (el.options ?? []).map(option),
  );
  return select;
}

/** An external_select: a combobox whose options come from the bot (block_suggestion) as you type. */
function externalSelect(
  id: string,
  el: Element,
  required: boolean,
  fetchOptions: (query: string) => Promise<SuggestAnswer>,
): { root: HTMLElement; input: HTMLInputElement; read(): Value; write(v: Value): void } {
  const combo = new Combobox(id, el, required, fetchOptions);
  return {
    root: h('div', { class: 'combo' }, combo.input, combo.list),
    input: combo.input,
    read: () => combo.value(),
    write: () => {
      // A chosen option is kept by identity in `chosen`; nothing to restore from a bare value.
    },
  };
}

/** An external_select's text box and list: what was typed, the options answered for it, the one chosen. */
class Combobox {
  readonly input: HTMLInputElement;
  readonly list: HTMLUListElement;
  private readonly listId: string;
  private readonly minimum: number;
  private readonly fetchOptions: (query: string) => Promise<SuggestAnswer>;
  private chosen: { value: string; text: string } | undefined;
  private options: SuggestAnswer['options'] = [];
  private active = -1;
  private asked = 0;
  /** The text whose options are awaited; options for any other text are never shown or picked. */
  private wanted: string | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    id: string,
    el: Element,
    required: boolean,
    fetchOptions: (query: string) => Promise<SuggestAnswer>,
  ) {
    this.listId = `${id}-list`;
    this.minimum = el.min_query_length ?? 3;
    this.fetchOptions = fetchOptions;
    this.input = h('input', {
      id,
      class: 'input',
      type: 'text',
      role: 'combobox',
      autocomplete: 'off',
      'aria-autocomplete': 'list',
      'aria-expanded': 'false',
      'aria-controls': this.listId,
      placeholder: el.placeholder ? plainText(el.placeholder) : 'Type to search',
      required,
    });
    this.list = h('ul', { id: this.listId, role: 'listbox', class: 'listbox', hidden: true });
    this.chosen = el.initial_option
      ? { value: el.initial_option.value ?? '', text: optionText(el.initial_option) }
      : undefined;
    this.input.value = this.chosen?.text ?? '';
    this.listen();
  }

  /** The chosen option's value; null until one is chosen (typing forgets it). */
  value(): Value {
    return this.chosen?.value ?? null;
  }

  private listen(): void {
    const input = this.input;
    input.addEventListener('input', () => {
      this.chosen = undefined;
      clearTimeout(this.timer);
      this.forget(input.value);
      this.timer = setTimeout(() => void this.ask(input.value), 150);
    });
    input.addEventListener(
      'focus',
      () => void this.ask(input.value === this.chosen?.text ? '' : input.value),
    );
    input.addEventListener('blur', () => this.show(false));
    input.addEventListener('keydown', (event) => this.key(event));
  }

  private key(event: KeyboardEvent): void {
    if (this.list.hidden) return;
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      const step = event.key === 'ArrowDown' ? 1 : -1;
      this.active = Math.max(0, Math.min(this.options.length - 1, this.active + step));
      this.paint();
    } else if (event.key === 'Enter' && this.active >= 0) {
      event.preventDefault();
      this.choose(this.active);
    } else if (event.key === 'Escape') {
      event.preventDefault();
      event.stopPropagation();
      this.show(false);
    }
  }

  private show(open: boolean): void {
    this.list.hidden = !open;
    this.input.setAttribute('aria-expanded', String(open));
  }

  private paint(): void {
    this.list.replaceChildren(...this.items());
    if (this.active >= 0) this.input.setAttribute('aria-activedescendant', `${this.listId}-${this.active}`);
    else this.input.removeAttribute('aria-activedescendant');
  }

  private items(): HTMLLIElement[] {
    if (this.wanted !== undefined) return [h('li', { class: 'empty', role: 'presentation' }, 'Searching…')];
    if (this.options.length === 0) return [h('li', { class: 'empty', role: 'presentation' }, 'No matches')];
    return this.options.map((o, n) =>
      h(
        'li',
        {
          id: `${this.listId}-${n}`,
          role: 'option',
          'aria-selected': String(n === this.active),
          class: n === this.active ? 'active' : '',
          onmousedown: (event: Event) => {
            event.preventDefault();
            this.choose(n);
          },
        },
        o.text,
      ),
    );
  }

  private choose(n: number): void {
    const o = this.wanted === undefined ? this.options[n] : undefined;
    if (!o) return;
    this.chosen = { value: o.value, text: o.text };
    this.input.value = o.text;
    this.input.setCustomValidity('');
    this.show(false);
  }

  /** The text changed: the options shown belong to older text, so none stays clickable. */
  private forget(query: string): void {
    this.options = [];
    this.active = -1;
    this.wanted = query.length >= this.minimum ? query : undefined;
    this.paint();
    this.show(this.wanted !== undefined && document.activeElement === this.input);
  }

  private async ask(query: string): Promise<void> {
    if (query.length < this.minimum) return;
    this.wanted = query;
    const mine = ++this.asked;
    const answer = await this.fetchOptions(query).catch(() => ({ options: [] }));
    // A newer query is on its way, or the text changed since this one was asked.
    if (mine !== this.asked || this.wanted !== query) return;
    this.wanted = undefined;
    this.options = answer.options.slice(0, MAX_OPTIONS);
    this.active = this.options.length ? 0 : -1;
    this.paint();
    this.show(document.activeElement === this.input);
  }
}

function choiceGroup(id: string, el: Element, label: string, kind: 'checkbox' | 'radio') {
  const initial = new Set(
    [el.initial_option?.value, ...(el.initial_options ?? []).map((o) => o.value)].filter(Boolean),
  );
  const boxes = (el.options ?? []).map((o) => {
    const box = h('input', { type: kind, name: id, value: o.value ?? '', checked: initial.has(o.value) });
    return { box, row: h('label', { class: 'choice' }, box, h('span', {}, optionText(o))) };
  });
  const root = h(
    'fieldset',
    { class: 'choices', id },
    h('legend', { class: 'visually-hidden' }, label),
    boxes.map((b) => b.row),
  );
  const read = (): Value => {
    const checked = boxes.filter((b) => b.box.checked).map((b) => b.box.value);
    return kind === 'checkbox' ? checked : (checked[0] ?? null);
  };
  const write = (value: Value) => {
    const set = new Set(Array.isArray(value) ? value : value ? [value] : []);
    for (const b of boxes) b.box.checked = set.has(b.box.value);
  };
  return { root, read, write };
}

/** The form control of an input block's element, and how it reads and writes its value. */
function inputControl(
  id: string,
  el: Element,
  label: string,
  required: boolean,
  suggest: (query: string) => Promise<SuggestAnswer>,
): { control: HTMLElement; focusable: HTMLElement; read(): Value; write(value: Value): void } {
  if (el.type === 'checkboxes' || el.type === 'radio_buttons') {
    const group = choiceGroup(id, el, label, el.type === 'checkboxes' ? 'checkbox' : 'radio');
    return { control: group.root, focusable: group.root, read: group.read, write: group.write };
  }
  if (el.type === 'external_select') {
    const combo = externalSelect(id, el, required, suggest);
    return { control: combo.root, focusable: combo.input, read: combo.read, write: combo.write };
  }
  if (el.type === 'static_select' || el.type === 'multi_static_select') {
    const select = selectControl(id, el, required);
    if (allOptions(el).length === 0) select.disabled = true;
    return {
      control: select,
      focusable: select,
      read: () => (select.multiple ? [...select.selectedOptions].map((o) => o.value) : select.value || null),
      write: (value) => {
        const set = new Set(Array.isArray(value) ? value : [value]);
        for (const o of select.options) o.selected = set.has(o.value);
      },
    };
  }
  const input = textControl(id, el, required);
  return {
    control: input,
    focusable: input,
    read: () => input.value,
    write: (value) => {
      input.value = typeof value === 'string' ? value : '';
    },
  };
}

function inputBlock(b: InputBlock, handlers: ModalHandlers): { node: HTMLElement; field: Field } {
  const el = b.element as unknown as Element;
  const blockId = b.block_id ?? '';
  const actionId = el.action_id ?? '';
  const id = uid('field');
  const label = plainText(b.label);
  const required = !b.optional;
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  const error = h('div', { class: 'field-error', id: errorId, role: 'alert', hidden: true });
  const { control, focusable, read, write } = inputControl(id, el, label, required, (query) =>
    handlers.suggest(blockId, actionId, query),
  );
  const grouped = el.type === 'checkboxes' || el.type === 'radio_buttons';
  if (grouped) control.setAttribute('aria-labelledby', `${id}-label`);
  if (b.hint) focusable.setAttribute('aria-describedby', hintId);
  const node = h(
    'div',
    { class: 'input-block', 'data-block-id': blockId },
    h(
      'div',
      { class: 'label-row' },
      grouped
        ? h('span', { class: 'label', id: `${id}-label` }, label)
        : h('label', { class: 'label', for: id, id: `${id}-label` }, label),
      b.optional ? h('span', { class: 'optional' }, '(optional)') : null,
    ),
    control,
    error,
    b.hint ? h('div', { class: 'hint', id: hintId }, plainText(b.hint)) : null,
  );
  const setError = (message: string | undefined) => {
    error.hidden = !message;
    error.textContent = message ?? '';
    node.classList.toggle('has-error', Boolean(message));
    if (message) {
      focusable.setAttribute('aria-invalid', 'true');
      focusable.setAttribute('aria-errormessage', errorId);
    } else {
      focusable.removeAttribute('aria-invalid');
      focusable.removeAttribute('aria-errormessage');
    }
  };
  return { node, field: { blockId, actionId, read, write, setError } };
}

/** The modal's body: its blocks in order, with the input blocks' fields collected for reading back. */
function modalBody(view: View, handlers: ModalHandlers): { body: HTMLElement; fields: Field[] } {
  const fields: Field[] = [];
  const body = h('div', { class: 'modal-body' });
  for (const raw of view.blocks as KnownBlock[]) {
    if (raw.type === 'input') {
      const { node, field } = inputBlock(raw, handlers);
      fields.push(field);
      body.appendChild(node);
    } else {
      body.appendChild(block(raw, handlers));
    }
  }
  return { body, fields };
}

/** The fields' values keyed as Slack's view state is: block id, then action id. */
function readValues(fields: Field[]): Values {
  const out: Values = {};
  for (const f of fields) {
    out[f.blockId] ??= {};
    (out[f.blockId] as Record<string, Value>)[f.actionId] = f.read();
  }
  return out;
}

/** Shows each field's error (or clears it) and moves the focus to the first field in error. */
function showErrors(
  dialog: HTMLDialogElement,
  fields: Field[],
  errors: Record<string, string> | undefined,
): void {
  let first = true;
  for (const f of fields) {
    const message = errors?.[f.blockId];
    f.setError(message);
    if (message && first) {
      first = false;
      dialog
        .querySelector<HTMLElement>(
          `[data-block-id="${CSS.escape(f.blockId)}"] .input, [data-block-id="${CSS.escape(f.blockId)}"] input`,
        )
        ?.focus();
    }
  }
}

export function renderModal(view: View, handlers: ModalHandlers, depth: number): ModalElement {
  const titleId = uid('modal-title');
  const { body, fields } = modalBody(view, handlers);
  const title = 'title' in view && view.title ? plainText(view.title) : 'App';
  const submitText = 'submit' in view && view.submit ? plainText(view.submit) : undefined;
  const closeText = 'close' in view && view.close ? plainText(view.close) : submitText ? 'Cancel' : 'Close';
  const submit = submitText ? h('button', { type: 'submit', class: 'btn primary' }, submitText) : null;
  const values = (): Values => readValues(fields);
  const form = h(
    'form',
    {
      class: 'modal-form',
      // Required fields are checked by the workbench and shown under the input, as Slack's client does.
      novalidate: true,
      onsubmit: (event: Event) => {
        event.preventDefault();
        if (submit) handlers.submit(values());
      },
    },
    h(
      'header',
      { class: 'modal-header' },
      depth > 1
        ? h('span', { class: 'stack-depth', title: 'Views stacked with views.push' }, `${depth} views`)
        : null,
      h('h2', { id: titleId }, title),
      h(
        'button',
        { type: 'button', class: 'icon-btn', 'aria-label': 'Dismiss', onclick: () => handlers.close() },
        '✕',
      ),
    ),
    body,
    h(
      'footer',
      { class: 'modal-footer' },
      h('button', { type: 'button', class: 'btn', onclick: () => handlers.close() }, closeText),
      submit,
    ),
  );
  const dialog = h('dialog', { class: 'modal', 'aria-labelledby': titleId }, form);
  dialog.addEventListener('cancel', (event) => {
    event.preventDefault();
    handlers.close();
  });
  return {
    dialog,
    values,
    setErrors(errors) {
      showErrors(dialog, fields, errors);
    },
    restore(previous) {
      for (const f of fields) {
        const value = previous[f.blockId]?.[f.actionId];
        if (value !== undefined && value !== null && value !== '') f.write(value);
      }
    },
    setBusy(busy) {
      if (submit) {
        submit.disabled = busy;
        submit.setAttribute('aria-busy', String(busy));
      }
    },
  };
}
