/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// A tiny element builder for the passkey pages: every outside text goes in as a text node, never as HTML.
import type { Person } from '../protocol.js';

type Child = Node | string | null | undefined | false;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Record<string, string | undefined> = {},
  ...children: Array<Child | Child[]>
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value !== undefined) element.setAttribute(name, value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    element.appendChild(typeof child === 'string' ? document.createTextNode(child) : child);
  }
  return element;
}

/**
 * A person as the pages show them: their Slack id first, in its own element, then the name they chose
 * (a name can itself read like an id in brackets; the id before it cannot be chosen). An empty name,
 * Slack having given none, is left out.
 */
export function person(who: Person): Array<Node | string> {
  return [
    h('code', { class: 'who' }, who.id),
    ...(who.name !== undefined && who.name !== '' ? [' ', h('span', { class: 'name' }, who.name)] : []),
  ];
}

/** The page's outcome line: a success (status) or a refusal (alert), in a sentence. */
export function say(outcome: HTMLElement, text: string, kind: 'ok' | 'problem' | 'working'): void {
  outcome.textContent = text;
  outcome.className = `outcome ${kind}`;
  outcome.setAttribute('role', kind === 'problem' ? 'alert' : 'status');
}

/** The page's frame: the bot's mark, the heading, then the rest. */
export function frame(heading: string, ...children: Node[]): HTMLElement {
  const main = document.getElementById('page') ?? document.body;
  main.replaceChildren(
    h('header', { class: 'brand' }, h('span', { class: 'mark', 'aria-hidden': 'true' }, '₦'), 'cngn-desk'),
    h('h1', {}, heading),
    ...children,
  );
  main.setAttribute('aria-busy', 'false');
  return main;
}
