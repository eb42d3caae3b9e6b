/// <reference lib="dom" />
// The signing page: the request as the store holds it (every figure in full, with its marks, the
// checks, and exactly what the passkey signs), and "Sign ₦… with your passkey", which signs it in the
// browser (startAuthentication) and sends the signature to the bot, which approves with it.
import { startAuthentication } from '@simplewebauthn/browser';
import {
  CALLS,
  CHECKS_HEADING,
  SIGNED_TEXT_HEADING,
  type SignOptionsAnswer,
  type SignRequestView,
  type SignSubmitAnswer,
} from '../protocol.js';
import { browserProblem, post } from './api.js';
import { frame, h, person, say } from './dom.js';

function figuresList(request: SignRequestView): HTMLElement {
  return h(
    'dl',
    { class: 'figures' },
    request.figures.flatMap((f) => [
      h('dt', {}, f.label),
      h(
        'dd',
        {},
        h('span', { class: 'value' }, f.id ? person({ id: f.id, name: f.value }) : f.value),
        f.mark ? h('span', { class: 'flag' }, f.mark) : null,
      ),
    ]),
  );
}

function details(request: SignRequestView): HTMLElement[] {
  const parts: HTMLElement[] = [
    h(
      'p',
      { class: 'meta' },
      h('span', { class: `env env-${request.environment.toLowerCase()}` }, request.environment),
      ` ${request.id} · round ${request.round} · requested by `,
      person(request.requester),
    ),
    figuresList(request),
  ];
  if (request.checks.length > 0) {
    parts.push(
      h(
        'section',
        { class: 'checks', 'aria-label': CHECKS_HEADING },
        h('h2', {}, CHECKS_HEADING),
        h(
          'ul',
          {},
          request.checks.map((c) => h('li', {}, c)),
        ),
      ),
    );
  }
  parts.push(
    h(
      'details',
      {},
      h('summary', {}, SIGNED_TEXT_HEADING),
      h('pre', {}, request.bytes),
      h(
        'p',
        { class: 'hint' },
        'Hidden characters are shown marked, as ⟨U+202E⟩; your passkey signs the text itself.',
      ),
    ),
  );
  return parts;
}

export async function signPage(token: string, outcome: HTMLElement): Promise<void> {
  const loaded = await post<SignOptionsAnswer>(CALLS.signOptions, { token });
  if (!loaded.ok) {
    frame('Sign an approval', outcome);
    return say(outcome, loaded.problem, 'problem');
  }
  const { request } = loaded;
  const label = request.amount ? `Sign ${request.amount} with your passkey` : 'Sign with your passkey';
  const button = h('button', { type: 'button' }, label);
  frame(
    `Approve: ${request.title}`,
    h(
      'p',
      { class: 'lead' },
      'Check every figure against what you expect. Nothing is approved until you sign.',
    ),
    h('div', { class: 'card' }, ...details(request)),
    button,
    outcome,
  );
  button.addEventListener('click', () => {
    button.disabled = true;
    void signOnce(token, loaded, outcome).then((done) => {
      button.disabled = done;
    });
  });
}

/** Sign and send; true once sent (the link is then used, whatever the answer). */
async function signOnce(token: string, loaded: SignOptionsAnswer, outcome: HTMLElement): Promise<boolean> {
  say(outcome, 'Follow your browser: touch, face or PIN…', 'working');
  let response: Awaited<ReturnType<typeof startAuthentication>>;
  try {
    response = await startAuthentication({ optionsJSON: loaded.options });
  } catch (error) {
    say(outcome, browserProblem(error, 'signature'), 'problem');
    return false;
  }
  const sent = await post<SignSubmitAnswer>(CALLS.signSubmit, {
    token,
    nonce: loaded.nonce,
    figuresDigest: loaded.figuresDigest,
    response,
  });
  if (!sent.ok) say(outcome, sent.problem, 'problem');
  else say(outcome, sent.message, 'ok');
  return true;
}
