/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// The message box: `/cngn …` goes to the bot as a slash command, anything else is a plain message.
// Typing `/` lists the subcommands with their usage from the bot's own help; Tab completes.
import { h } from './dom.js';

export interface Hint {
  usage: string;
  summary: string;
}

export interface Composer {
  root: HTMLElement;
  setPlaceholder(text: string): void;
  focus(): void;
}

export function composer(
  hints: Hint[],
  send: (text: string) => Promise<boolean>,
  label = 'Message',
): Composer {
  const box = h('textarea', { class: 'composer-input', 'aria-label': label, rows: 1, autocomplete: 'off' });
  const hinting = hintList(box, hints);
  const grow = () => {
    box.style.height = 'auto';
    box.style.height = `${Math.min(box.scrollHeight, 160)}px`;
  };
  box.addEventListener('input', () => {
    hinting.restart();
    grow();
  });
  box.addEventListener('blur', () => hinting.hide());
  box.addEventListener('keydown', async (event) => {
    if (hinting.key(event)) return;
    if (event.key === 'Escape') {
      hinting.hide();
      return;
    }
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      const text = box.value.trim();
      if (!text) return;
      hinting.hide();
      box.value = '';
      grow();
      if (!(await send(text))) box.value = text;
    }
  });
  return {
    root: h(
      'div',
      { class: 'composer' },
      hinting.list,
      box,
      h(
        'div',
        { class: 'composer-help' },
        hints.length ? 'Enter to send · Shift+Enter for a new line · type / for commands' : 'Enter to send',
      ),
    ),
    setPlaceholder(text) {
      box.placeholder = text;
    },
    focus() {
      box.focus();
    },
  };
}

/** The subcommands that fit what is typed after `/cngn`, listed above the box; Tab or a click completes one. */
function hintList(box: HTMLTextAreaElement, hints: Hint[]) {
  const list = h('ul', { class: 'hints', hidden: true, 'aria-label': 'Command hints' });
  let shown: Hint[] = [];
  let active = 0;

  const complete = (hint: Hint) => {
    box.value = `/cngn ${hint.usage.split(' ')[0]} `;
    list.hidden = true;
    box.focus();
  };
  const paint = () => {
    const typed = box.value;
    const match = /^\/(c(n(g(n)?)?)?)?( +(\S*))?$/.exec(typed.split('\n')[0] ?? '');
    if (!typed.startsWith('/') || !match || typed.includes('\n')) {
      list.hidden = true;
      return;
    }
    const word = (match[6] ?? '').toLowerCase();
    shown = hints.filter((hint) => hint.usage.toLowerCase().startsWith(word));
    if (shown.length === 0) {
      list.hidden = true;
      return;
    }
    active = Math.min(active, shown.length - 1);
    list.replaceChildren(
      ...shown.map((hint, n) =>
        h(
          'li',
          {
            class: n === active ? 'active' : '',
            onmousedown: (event: Event) => {
              event.preventDefault();
              complete(hint);
            },
          },
          h('code', {}, `/cngn ${hint.usage}`),
          h('span', {}, hint.summary),
        ),
      ),
    );
    list.hidden = false;
  };
  return {
    list,
    /** The text changed: the hints fit it again, the first one active. */
    restart() {
      active = 0;
      paint();
    },
    hide() {
      list.hidden = true;
    },
    /** The arrows move through the shown hints and Tab completes one; true when the key was the list's. */
    key(event: KeyboardEvent): boolean {
      if (list.hidden) return false;
      if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
        event.preventDefault();
        active = (active + (event.key === 'ArrowDown' ? 1 : shown.length - 1)) % shown.length;
        paint();
        return true;
      }
      if (event.key === 'Tab') {
        const hint = shown[active];
        if (hint) {
          event.preventDefault();
          complete(hint);
        }
        return true;
      }
      return false;
    },
  };
}
