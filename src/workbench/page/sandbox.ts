/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// The sandbox panel: what the embedded sandbox lets a person do to the world, so deposits,
// settlements and failures reach #alerts through the real signed webhook path.
import type { SandboxAction, WorkbenchAnswer } from '../protocol.js';
import { h, uid } from './dom.js';

type Run = (action: SandboxAction, body: Record<string, string>, done: string) => Promise<WorkbenchAnswer>;

function field(
  label: string,
  attributes: Record<string, string>,
): { row: HTMLElement; input: HTMLInputElement } {
  const id = uid('sandbox');
  const input = h('input', { id, class: 'input small', type: 'text', ...attributes });
  return { row: h('div', { class: 'sb-field' }, h('label', { for: id }, label), input), input };
}

export function sandboxPanel(run: Run): HTMLElement {
  const status = h('div', { class: 'sb-status', role: 'status', 'aria-live': 'polite' });
  const go = async (
    button: HTMLButtonElement,
    action: SandboxAction,
    body: Record<string, string>,
    done: string,
  ) => {
    button.disabled = true;
    status.textContent = '…';
    const answer = await run(action, body, done);
    button.disabled = false;
    status.textContent = answer.ok ? done : (answer.error ?? 'The sandbox refused.');
    status.classList.toggle('error', !answer.ok);
  };
  const clean = (body: Record<string, string>) =>
    Object.fromEntries(
      Object.entries(body)
        .filter(([, v]) => v.trim() !== '')
        .map(([k, v]) => [k, v.trim()]),
    );

  const account = field('Account number', { placeholder: 'latest deposit account', inputmode: 'numeric' });
  const payAmount = field('Amount (₦)', { placeholder: 'the amount asked' });
  const payButton = h('button', { type: 'button', class: 'btn small' }, 'Pay in');
  payButton.addEventListener('click', () =>
    go(
      payButton,
      'pay',
      clean({ account: account.input.value, amount: payAmount.input.value }),
      'Paid in: watch #alerts.',
    ),
  );

  const cryptoAmount = field('Deposit amount (₦)', { value: '5000' });
  const network = field('Network', { placeholder: 'base' });
  const cryptoButton = h('button', { type: 'button', class: 'btn small' }, 'Send crypto deposit');
  cryptoButton.addEventListener('click', () =>
    go(
      cryptoButton,
      'crypto-deposit',
      clean({ amount: cryptoAmount.input.value, network: network.input.value }),
      'Crypto deposit sent: watch #alerts.',
    ),
  );

  const settle = h('button', { type: 'button', class: 'btn small' }, 'Settle pending');
  settle.addEventListener('click', () => go(settle, 'settle', {}, 'Pending transactions settled.'));
  const fail = h(
    'button',
    { type: 'button', class: 'btn small danger-outline' },
    'Make the next redemption fail',
  );
  fail.addEventListener('click', () =>
    go(fail, 'fail-next-redemption', {}, 'The next redemption will fail at the bank.'),
  );

  return h(
    'section',
    { class: 'sandbox', 'aria-labelledby': 'sandbox-title' },
    h('h2', { id: 'sandbox-title' }, '🧪 Sandbox'),
    h(
      'div',
      { class: 'sb-group' },
      h('h3', {}, 'Pay into a virtual account'),
      account.row,
      payAmount.row,
      payButton,
    ),
    h(
      'div',
      { class: 'sb-group' },
      h('h3', {}, 'Crypto deposit'),
      cryptoAmount.row,
      network.row,
      cryptoButton,
    ),
    h('div', { class: 'sb-group' }, settle, fail),
    status,
  );
}
