/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// Block Kit → DOM for messages, App Home and the read-only blocks of modals: header, section (text,
// fields, accessory), context, divider, actions (buttons with style and confirm, selects, overflow),
// image, rich_text (as text). Inputs are drawn by modal.ts.
import type {
  ActionsBlockElement,
  Button,
  ConfirmationDialog,
  ContextBlockElement,
  KnownBlock,
  MrkdwnElement,
  PlainTextElement,
  PlainTextOption,
} from '@slack/types';
import { h } from './dom.js';
import { mrkdwn, type Names, plainText, SAFE_URL } from './mrkdwn.js';

/** What the person clicked or chose, for the server to turn into a signed block_actions. */
export interface Choice {
  block_id: string;
  action_id: string;
  value?: string;
}

export interface BlockContext {
  names: Names;
  act(choice: Choice): void;
}

type AnyBlock = KnownBlock | { type: string; block_id?: string };
type TextObject = PlainTextElement | MrkdwnElement;

function text(object: TextObject | undefined, names: Names): HTMLElement {
  if (!object) return h('span');
  if (object.type === 'mrkdwn') return mrkdwn(object.text, names);
  return h('div', { class: 'plain' }, plainText(object));
}

export function optionText(option: { text: TextObject } | PlainTextOption): string {
  const label = option.text as TextObject;
  return label.type === 'plain_text' ? plainText(label) : label.text;
}

/** Slack's confirm: a small dialog named by its title; resolves true on confirm. */
function confirmDialog(confirm: ConfirmationDialog, names: Names): Promise<boolean> {
  return new Promise((resolve) => {
    const dialog = h('dialog', { class: 'confirm', 'aria-labelledby': 'confirm-title' });
    const finish = (answer: boolean) => {
      dialog.close();
      dialog.remove();
      resolve(answer);
    };
    const confirmStyle = confirm.style === 'danger' ? 'danger' : 'primary';
    dialog.append(
      h('h2', { id: 'confirm-title' }, plainText(confirm.title) || 'Are you sure?'),
      text(confirm.text as TextObject, names),
      h(
        'div',
        { class: 'buttons' },
        h(
          'button',
          { type: 'button', class: 'btn', onclick: () => finish(false) },
          plainText(confirm.deny) || 'Cancel',
        ),
        h(
          'button',
          { type: 'button', class: `btn ${confirmStyle}`, onclick: () => finish(true) },
          plainText(confirm.confirm) || 'Yes',
        ),
      ),
    );
    dialog.addEventListener('cancel', (event) => {
      event.preventDefault();
      finish(false);
    });
    document.body.appendChild(dialog);
    dialog.showModal();
  });
}

async function confirmed(confirm: ConfirmationDialog | undefined, names: Names): Promise<boolean> {
  return confirm ? confirmDialog(confirm, names) : true;
}

function button(element: Button, blockId: string, ctx: BlockContext): HTMLElement {
  const style = element.style ? ` ${element.style}` : '';
  return h(
    'button',
    {
      type: 'button',
      class: `btn${style}`,
      onclick: async () => {
        if (!(await confirmed(element.confirm, ctx.names))) return;
        // Only a link the page would draw as one (never javascript: or data:).
        if (element.url && SAFE_URL.test(element.url)) window.open(element.url, '_blank', 'noopener');
        ctx.act({ block_id: blockId, action_id: element.action_id ?? '', value: element.value });
      },
    },
    plainText(element.text),
  );
}

function staticSelect(
  element: {
    action_id?: string;
    options?: PlainTextOption[];
    placeholder?: PlainTextElement;
    initial_option?: PlainTextOption;
    confirm?: ConfirmationDialog;
  },
  blockId: string,
  ctx: BlockContext,
): HTMLElement {
  const placeholder = plainText(element.placeholder) || 'Select an item';
  const select = h(
    'select',
    {
      class: 'select',
      'aria-label': placeholder,
      onchange: async (event: Event) => {
        const value = (event.target as HTMLSelectElement).value;
        if (!(await confirmed(element.confirm, ctx.names))) return;
        ctx.act({ block_id: blockId, action_id: element.action_id ?? '', value });
      },
    },
    h('option', { value: '', disabled: true, selected: !element.initial_option }, placeholder),
    (element.options ?? []).map((o) =>
      h(
        'option',
        { value: o.value ?? '', selected: o.value === element.initial_option?.value },
        optionText(o),
      ),
    ),
  );
  return select;
}

function overflow(
  element: { action_id?: string; options: PlainTextOption[]; confirm?: ConfirmationDialog },
  blockId: string,
  ctx: BlockContext,
): HTMLElement {
  const menu = h('div', { class: 'overflow-menu', role: 'menu', hidden: true });
  const toggle = h(
    'button',
    { type: 'button', class: 'btn overflow', 'aria-label': 'More actions', 'aria-haspopup': 'menu' },
    '⋯',
  );
  toggle.addEventListener('click', () => {
    menu.hidden = !menu.hidden;
  });
  for (const o of element.options) {
    menu.appendChild(
      h(
        'button',
        {
          type: 'button',
          role: 'menuitem',
          onclick: async () => {
            menu.hidden = true;
            if (!(await confirmed(element.confirm, ctx.names))) return;
            ctx.act({ block_id: blockId, action_id: element.action_id ?? '', value: o.value });
          },
        },
        optionText(o),
      ),
    );
  }
  return h('div', { class: 'overflow-wrap' }, toggle, menu);
}

function image(element: { image_url?: string; alt_text: string; title?: PlainTextElement }, small = false) {
  // Offline, an outside image may not load: its alt text is still there for people and tests.
  return h('img', {
    class: small ? 'ctx-img' : 'img',
    src: element.image_url ?? '',
    alt: element.alt_text,
    title: element.title ? plainText(element.title) : null,
    loading: 'lazy',
  });
}

/** An interactive element in an actions block or a section's accessory. */
function element(
  el: ActionsBlockElement | { type: string },
  blockId: string,
  ctx: BlockContext,
): HTMLElement {
  const e = el as ActionsBlockElement;
  switch (e.type) {
    case 'button':
      return button(e, blockId, ctx);
    case 'static_select':
      return staticSelect(e, blockId, ctx);
    case 'overflow':
      return overflow(e, blockId, ctx);
    default: {
      const typed = el as { type: string; image_url?: string; alt_text?: string };
      if (typed.type === 'image')
        return image({ image_url: typed.image_url, alt_text: typed.alt_text ?? '' });
      return h('span', { class: 'unsupported' }, `[${typed.type}]`);
    }
  }
}

function contextElement(el: ContextBlockElement, names: Names): HTMLElement {
  if (el.type === 'image') return image(el as { image_url?: string; alt_text: string }, true);
  return text(el as TextObject, names);
}

/** rich_text is not sent by the bot; its words are shown so nothing is silently dropped. */
function richTextWords(node: unknown): string {
  if (!node || typeof node !== 'object') return '';
  const n = node as { text?: string; elements?: unknown[]; name?: string; type?: string };
  if (typeof n.text === 'string') return n.text;
  if (n.type === 'emoji' && n.name) return `:${n.name}:`;
  return (n.elements ?? []).map(richTextWords).join(n.type === 'rich_text_list' ? '\n' : '');
}

export function block(raw: AnyBlock, ctx: BlockContext): HTMLElement {
  const b = raw as KnownBlock;
  const blockId = b.block_id ?? '';
  switch (b.type) {
    case 'header':
      return h('div', { class: 'blk-header', role: 'heading', 'aria-level': 3 }, plainText(b.text));
    case 'divider':
      return h('hr', { class: 'blk-divider' });
    case 'section': {
      const body = h('div', { class: 'blk-section-body' });
      if (b.text) body.appendChild(text(b.text, ctx.names));
      if (b.fields?.length) {
        body.appendChild(
          h(
            'div',
            { class: 'fields' },
            b.fields.map((f) => h('div', { class: 'field' }, text(f, ctx.names))),
          ),
        );
      }
      const accessory = b.accessory
        ? h('div', { class: 'accessory' }, element(b.accessory, blockId, ctx))
        : null;
      return h('div', { class: 'blk-section' }, body, accessory);
    }
    case 'context':
      return h(
        'div',
        { class: 'blk-context' },
        b.elements.map((e) => contextElement(e, ctx.names)),
      );
    case 'actions':
      return h(
        'div',
        { class: 'blk-actions' },
        b.elements.map((e) => element(e, blockId, ctx)),
      );
    case 'image':
      return h(
        'figure',
        { class: 'blk-image' },
        b.title ? h('figcaption', {}, plainText(b.title)) : null,
        image({ image_url: (b as { image_url?: string }).image_url, alt_text: b.alt_text }),
      );
    case 'rich_text':
      return h('div', { class: 'plain' }, richTextWords(b));
    default:
      return h('div', { class: 'unsupported' }, `[${(raw as { type: string }).type} block]`);
  }
}

export function blocks(list: AnyBlock[], ctx: BlockContext): HTMLElement {
  return h(
    'div',
    { class: 'blocks' },
    list.map((b) => block(b, ctx)),
  );
}
