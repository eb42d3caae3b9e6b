/// <reference lib="dom" />
// The registration page: whom it is for, a name for the passkey, and "Create passkey", which makes
// the passkey in the browser (startRegistration) and files it as a request another approver approves.
import { startRegistration } from '@simplewebauthn/browser';
import { CALLS, NAME_MAX, type RegisterFileAnswer, type RegisterOptionsAnswer } from '../protocol.js';
import { browserProblem, post } from './api.js';
import { frame, h, person, say } from './dom.js';

export async function registerPage(token: string, outcome: HTMLElement): Promise<void> {
  const loaded = await post<RegisterOptionsAnswer>(CALLS.registerOptions, { token });
  if (!loaded.ok) {
    frame('Register a passkey', outcome);
    return say(outcome, loaded.problem, 'problem');
  }
  const name = h('input', {
    id: 'passkey-name',
    type: 'text',
    maxlength: String(NAME_MAX),
    placeholder: 'Bola’s MacBook',
    autocomplete: 'off',
    required: '',
  });
  const create = h('button', { type: 'submit' }, 'Create passkey');
  const form = h(
    'form',
    { class: 'card' },
    h('label', { for: 'passkey-name' }, 'Name'),
    name,
    h('p', { class: 'hint' }, 'What you call this device, up to 60 characters.'),
    create,
  );
  frame(
    'Register a passkey',
    h(
      'p',
      { class: 'lead' },
      'For ',
      h('strong', {}, person(loaded.user)),
      '. It counts once another approver approves “Register a passkey” for you in Slack.',
    ),
    form,
    outcome,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    create.disabled = true;
    void fileOne(token, loaded, name.value, outcome).then((done) => {
      create.disabled = done;
    });
  });
}

/** Make the passkey and file it; true once filed (the link is then used). */
async function fileOne(token: string, loaded: RegisterOptionsAnswer, name: string, outcome: HTMLElement) {
  if (!name.trim()) {
    say(outcome, 'Name your passkey first (such as “Bola’s MacBook”).', 'problem');
    return false;
  }
  say(outcome, 'Follow your browser: touch, face or PIN…', 'working');
  let response: Awaited<ReturnType<typeof startRegistration>>;
  try {
    response = await startRegistration({ optionsJSON: loaded.options });
  } catch (error) {
    say(outcome, browserProblem(error, 'passkey'), 'problem');
    return false;
  }
  const filed = await post<RegisterFileAnswer>(CALLS.registerFile, {
    token,
    name: name.trim(),
    expectedChallenge: loaded.options.challenge,
    response,
  });
  if (!filed.ok) say(outcome, filed.problem, 'problem');
  else say(outcome, filed.message, 'ok');
  return true;
}
