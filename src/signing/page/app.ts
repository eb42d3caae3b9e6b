/// <reference lib="dom" />
// The passkey pages' script (bundled by ../assets.ts): which page this is, from its path, and the
// link's one-time token, from its address (`?t=`); nothing else comes from the address.
import './style.css';
import { REGISTER_PAGE, SIGN_PAGE } from '../protocol.js';
import { frame, h, say } from './dom.js';
import { registerPage } from './register.js';
import { signPage } from './sign.js';

function start(): void {
  const outcome = h('p', { class: 'outcome', 'aria-live': 'polite' });
  const token = new URLSearchParams(window.location.search).get('t') ?? '';
  const path = window.location.pathname;
  if (!window.PublicKeyCredential) {
    frame('Passkeys', outcome);
    say(outcome, 'This browser cannot use passkeys: open the link in a current browser.', 'problem');
    return;
  }
  if (path === REGISTER_PAGE) void registerPage(token, outcome);
  else if (path === SIGN_PAGE) void signPage(token, outcome);
}

start();
