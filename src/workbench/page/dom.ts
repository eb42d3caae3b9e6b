/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// A tiny element builder: every outside text goes in as a text node, never as HTML.

type Child = Node | string | null | undefined | false;
type Attributes = Record<string, string | number | boolean | null | undefined | EventListener>;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Attributes = {},
  ...children: Array<Child | Child[]>
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === null || value === undefined || value === false) continue;
    if (typeof value === 'function') element.addEventListener(name.replace(/^on/, ''), value);
    else if (name === 'class') element.className = String(value);
    // Through the CSSOM: the page's policy (style-src 'self') refuses style attributes.
    else if (name === 'style') element.style.cssText = String(value);
    else if (value === true) element.setAttribute(name, '');
    else element.setAttribute(name, String(value));
  }
  append(element, children);
  return element;
}

export function append(parent: Node, children: Array<Child | Child[]>): void {
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === 'string' ? document.createTextNode(child) : child);
  }
}

let counter = 0;
/** A page-unique id for label/control pairs. */
export function uid(prefix: string): string {
  counter += 1;
  return `${prefix}-${counter}`;
}

/**
 * Makes `parent`'s children exactly `nodes`, moving only what changed: nodes already in place stay
 * untouched, so a live region (role="log") announces only what is new.
 */
export function syncChildren(parent: Element, nodes: Node[]): void {
  nodes.forEach((node, i) => {
    const at = parent.childNodes[i];
    if (at !== node) parent.insertBefore(node, at ?? null);
  });
  while (parent.childNodes.length > nodes.length) parent.lastChild?.remove();
}

/** Nodes drawn before, kept by key while what they show (their signature) is unchanged. */
export class NodeCache {
  private kept = new Map<string, { signature: string; node: HTMLElement }>();
  private next = new Map<string, { signature: string; node: HTMLElement }>();

  get(key: string, signature: string, draw: () => HTMLElement): HTMLElement {
    const hit = this.kept.get(key);
    const node = hit && hit.signature === signature ? hit.node : draw();
    this.next.set(key, { signature, node });
    return node;
  }

  /** Forget what was not asked for since the last call. */
  sweep(): void {
    this.kept = this.next;
    this.next = new Map();
  }
}
