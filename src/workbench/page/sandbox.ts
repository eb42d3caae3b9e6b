/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// The sandbox panel: what the embedded sandbox lets a person do to the world, so deposits,
// settlements and failures reach #alerts through the real signed webhook path; and "Require
// passkeys", which switches the running bot's signing rule between off and all.
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

type Go = (
  button: HTMLButtonElement,
  action: SandboxAction,
  body: Record<string, string>,
  done: string,
) => Promise<void>;

/** Runs one sandbox action from its button: the button is off while it runs, the outcome goes to the status line. */
function sandboxRunner(run: Run, status: HTMLElement): Go {
  return async (button, action, body, done) => {
    button.disabled = true;
    status.textContent = '…';
    const answer = await run(action, body, done);
    button.disabled = false;
    status.textContent = answer.ok ? done : (answer.error ?? 'The sandbox refused.');
    status.classList.toggle('error', !answer.ok);
  };
}

/** The fields that were filled in, trimmed: an empty field is left for the sandbox to default. */
function filledIn(body: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(body)
      .filter(([, v]) => v.trim() !== '')
      .map(([k, v]) => [k, v.trim()]),
  );
}

function payInGroup(go: Go): HTMLElement {
  const account = field('Account number', { placeholder: 'latest deposit account', inputmode: 'numeric' });
  const payAmount = field('Amount (₦)', { placeholder: 'the amount asked' });
  const payButton = h('button', { type: 'button', class: 'btn small' }, 'Pay in');
  payButton.addEventListener('click', () =>
    go(
      payButton,
      'pay',
      filledIn({ account: account.input.value, amount: payAmount.input.value }),
      'Paid in: watch #alerts.',
    ),
  );
  return h(
    'div',
    { class: 'sb-group' },
    h('h3', {}, 'Pay into a virtual account'),
    account.row,
    payAmount.row,
    payButton,
  );
}

function cryptoDepositGroup(go: Go): HTMLElement {
  const cryptoAmount = field('Deposit amount (₦)', { value: '5000' });
  const network = field('Network', { placeholder: 'base' });
  const cryptoButton = h('button', { type: 'button', class: 'btn small' }, 'Send crypto deposit');
  cryptoButton.addEventListener('click', () =>
    go(
      cryptoButton,
      'crypto-deposit',
      filledIn({ amount: cryptoAmount.input.value, network: network.input.value }),
      'Crypto deposit sent: watch #alerts.',
    ),
  );
  return h(
    'div',
    { class: 'sb-group' },
    h('h3', {}, 'Crypto deposit'),
    cryptoAmount.row,
    network.row,
    cryptoButton,
  );
}

/** Settling what is pending and making the next redemption fail: buttons without fields. */
function settleAndFailGroup(go: Go): HTMLElement {
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
  return h('div', { class: 'sb-group' }, settle, fail);
}

/** Switches the bot's signing rule: the server's answer, with whether passkeys are required now. */
type SetPasskeys = (required: boolean) => Promise<WorkbenchAnswer & { passkeysRequired?: boolean }>;

const PASSKEYS_ON = 'Passkeys required: every approval is signed on the signing page.';
const PASSKEYS_OFF = 'Passkeys not required: approvals are clicks.';

/** "Require passkeys": a switch over the bot's signing rule; `show` sets it from the state. */
function passkeysGroup(
  set: SetPasskeys,
  status: HTMLElement,
): { group: HTMLElement; show(on?: boolean): void } {
  const id = uid('sandbox');
  const box = h('input', { id, type: 'checkbox', role: 'switch', class: 'sb-switch' });
  const said = h('div', { class: 'sb-note' });
  const group = h(
    'div',
    { class: 'sb-group' },
    h('h3', {}, 'Passkeys'),
    h('label', { for: id, class: 'sb-toggle' }, box, 'Require passkeys'),
    said,
  );
  const show = (on?: boolean) => {
    group.hidden = on === undefined;
    if (on === undefined || box.disabled) return;
    box.checked = on;
    said.textContent = on ? PASSKEYS_ON : PASSKEYS_OFF;
  };
  box.addEventListener('change', async () => {
    const wanted = box.checked;
    box.disabled = true;
    status.textContent = '…';
    const answer = await set(wanted);
    box.disabled = false;
    const on = answer.ok ? answer.passkeysRequired === true : !wanted;
    show(on);
    status.textContent = answer.ok
      ? `Switched ${on ? 'on' : 'off'}.`
      : (answer.error ?? 'The sandbox refused.');
    status.classList.toggle('error', !answer.ok);
  });
  return { group, show };
}

/** The panel; `showPasskeys` sets its "Require passkeys" from each state (undefined: approvals off, hidden). */
export function sandboxPanel(
  run: Run,
  setPasskeys: SetPasskeys,
): { element: HTMLElement; showPasskeys(on?: boolean): void } {
  const status = h('div', { class: 'sb-status', role: 'status', 'aria-live': 'polite' });
  const go = sandboxRunner(run, status);
  const passkeys = passkeysGroup(setPasskeys, status);
  const element = h(
    'section',
    { class: 'sandbox', 'aria-labelledby': 'sandbox-title' },
    h('h2', { id: 'sandbox-title' }, '🧪 Sandbox'),
    payInGroup(go),
    cryptoDepositGroup(go),
    settleAndFailGroup(go),
    passkeys.group,
    status,
  );
  return { element, showPasskeys: passkeys.show };
}
