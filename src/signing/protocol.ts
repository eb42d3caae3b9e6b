// What the passkey pages and the bot say to each other (docs/passkeys.md): the paths under
// /passkeys/, and the JSON of each call. Shared by the server (routes.ts) and the page's script
// (page/*.ts), so it imports nothing that does not run in a browser. Every call carries the link's
// one-time token, nothing else that says who is asking: the passkey book knows whom a token is for.
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';

export const PASSKEY_PREFIX = '/passkeys';
export const REGISTER_PAGE = `${PASSKEY_PREFIX}/register`;
export const SIGN_PAGE = `${PASSKEY_PREFIX}/sign`;
export const ASSETS = `${PASSKEY_PREFIX}/assets`;
const API = `${PASSKEY_PREFIX}/api`;

/** The JSON API, each a POST with a JSON body. */
export const CALLS = {
  registerOptions: `${API}/register/options`,
  registerFile: `${API}/register/file`,
  signOptions: `${API}/sign/options`,
  signSubmit: `${API}/sign/submit`,
} as const;

/** A passkey's name: what its owner calls it ("Bola's MacBook"). */
export const NAME_MAX = 60;

/** Every answer that is not a success: a plain sentence the page shows as it is. */
export interface Problem {
  ok: false;
  problem: string;
}

/** POST register/options and sign/options: the link's token. */
export interface TokenInput {
  token: string;
}

/**
 * A Slack user as the pages show them: the id first, in its own element, as it cannot be chosen; then
 * the display name, which anyone can set to anything (hidden characters marked), when Slack gave one.
 */
export interface Person {
  id: string;
  name?: string;
}

/** register/options: whom the page is for, and what the browser's navigator.credentials.create() takes. */
export interface RegisterOptionsAnswer {
  ok: true;
  /** Whom the link was issued to. */
  user: Person;
  options: PublicKeyCredentialCreationOptionsJSON;
}

/** register/file: what the browser registered, under the name its owner gave it. */
export interface RegisterFileInput {
  token: string;
  name: string;
  /** The challenge of the options the page was given (register/options). */
  expectedChallenge: string;
  response: RegistrationResponseJSON;
}

export interface RegisterFileAnswer {
  ok: true;
  /** The registration request another approver approves ("Register a passkey for @…"). */
  requestId: string;
  /** "Filed: waiting for another approver (AR-…)". */
  message: string;
}

/** The sign page's headings over its checks and over the signed text: "Look twice" names them so. */
export const CHECKS_HEADING = 'Checks';
export const SIGNED_TEXT_HEADING = 'Exactly what your passkey signs';

/** One line of what is signed, as the store holds it: a label, its value in full, and any mark on it. */
export interface Figure {
  label: string;
  /** A person's Slack id, shown before `value` (then their name) in its own element. */
  id?: string;
  /** The value; for a person with `id`, their name as Slack gives it ('' when Slack gave none). */
  value: string;
  /** A warning that belongs to this value (a look-alike address, a first payment). */
  mark?: string;
}

/** The request as the store holds it, for the sign page to show before anything is signed. */
export interface SignRequestView {
  id: string;
  kind: string;
  /** "Withdrawal of ₦250,000.00", as Slack titles it. */
  title: string;
  /** "₦250,000.00", or absent for kinds without an amount. */
  amount?: string;
  environment: string;
  round: number;
  /** Who filed it. */
  requester: Person;
  figures: Figure[];
  /** What the bot checked when the request was filed, one sentence each. */
  checks: string[];
  /**
   * The request's bytes as signed (approval-digest.ts), for whoever wants to see exactly that, with
   * hidden characters marked (the passkey signs the bytes themselves, not these).
   */
  bytes: string;
}

/** sign/options: the request as stored, and what the browser's navigator.credentials.get() takes. */
export interface SignOptionsAnswer {
  ok: true;
  /** Whom the link was issued to. */
  user: Person;
  request: SignRequestView;
  /** Sent back with the assertion: the one-time nonce the challenge was made with. */
  nonce: string;
  /** Sent back with the assertion: the figures the page showed (the engine refuses other figures). */
  figuresDigest: string;
  options: PublicKeyCredentialRequestOptionsJSON;
}

/** sign/submit: the browser's assertion over the challenge, with the nonce and the figures shown. */
export interface SignSubmitInput {
  token: string;
  nonce: string;
  figuresDigest: string;
  response: AuthenticationResponseJSON;
}

export interface SignSubmitAnswer {
  ok: true;
  requestId: string;
  /** "Approved. Slack shows it now.", or, still waiting, how many more approvals it needs. */
  message: string;
}
