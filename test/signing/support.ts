// The real bot with signed approvals on (CNGN_SIGNED_APPROVALS=all) and its passkey pages at
// http://localhost:<port>, its HTTP port, on the fake Slack and the embedded sandbox; the calls a
// passkey page makes, over HTTP with the Host (and Origin) a browser on that page sends; and an
// approver's Chromium tab with its own virtual authenticator, registering on the page.
import { request } from 'node:http';
import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import type { Browser, Locator, Page } from 'playwright-core';
import type { ApprovalEvidence } from '../../src/access/index.js';
import {
  APPROVER_A,
  APPROVER_B,
  type ApprovalApp,
  type ApprovalAppOptions,
  approve,
  freePort,
  REQUESTER,
  startApprovalApp,
  waitUntil,
} from '../slack/approvals/support.js';
import { seenOf } from '../support/approve-as-seen.js';
import { SoftwareAuthenticator } from '../support/authenticator.js';
import { contains, newPage } from '../support/browser.js';
import { FakeSlack } from '../support/fake-slack.js';
import { commandAnswer } from '../support/slack-requests.js';

export interface SigningApp extends ApprovalApp {
  /** http://localhost:<port>: CNGN_SIGNING_URL, the passkeys' relying party `localhost`. */
  signingUrl: string;
  port: number;
}

/** The names Slack gives the people of these tests. */
const NAMES: Record<string, string> = {
  [APPROVER_A]: 'Ade Bello',
  [APPROVER_B]: 'Bola Okafor',
  [REQUESTER]: 'Tunde Eze',
};

/**
 * The bot on a port probed free first (its signing URL names the port), tried again if it was taken;
 * its Slack names the approvers and the requester (NAMES). `more`: the audit archive's settings, the
 * policy recorded at start as a real start does (the verifier reads the signing rule from it), a
 * store of the caller's (left open when the bot stops), and `switchable`: the rule may be switched
 * while it runs, as in the workbench's sandbox.
 */
export async function startSigningApp(
  more: Pick<ApprovalAppOptions, 'config' | 'recordPolicy' | 'logger' | 'store'> & {
    switchable?: boolean;
  } = {},
): Promise<SigningApp> {
  const slack = await FakeSlack.start();
  for (const [id, name] of Object.entries(NAMES)) slack.people.set(id, { name });
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const signingUrl = `http://localhost:${port}`;
    const signing = {
      rule: { mode: 'all' as const },
      rpId: 'localhost',
      origin: signingUrl,
      switchable: more.switchable,
    };
    try {
      const config = { ...more.config, port, signing };
      const app = await startApprovalApp({
        slack,
        store: more.store,
        recordPolicy: more.recordPolicy,
        logger: more.logger,
        config,
      });
      const stop = async () => {
        await app.stop();
        await slack.stop();
      };
      return { ...app, signingUrl, port, stop };
    } catch (error) {
      if ((error as { code?: unknown }).code !== 'EADDRINUSE' || attempt >= 5) {
        await slack.stop();
        throw error;
      }
    }
  }
}

/** Where a page's requests go: the bot's port and its signing URL. */
export type PageHost = Pick<SigningApp, 'port' | 'signingUrl'>;

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: a test reads whichever field the answer has.
  json: any;
}

export interface Sent {
  method?: 'GET' | 'POST';
  body?: unknown;
  /** The Host header (default: the signing URL's, localhost:<port>). */
  host?: string;
  /** The Origin header (default: the signing URL for a POST). */
  origin?: string | null;
  contentType?: string;
}

/** One request to the bot's HTTP port (127.0.0.1), as a browser on the signing page sends it. */
export function send(app: PageHost, path: string, sent: Sent = {}): Promise<Answer> {
  const method = sent.method ?? (sent.body === undefined ? 'GET' : 'POST');
  const body = sent.body === undefined ? undefined : JSON.stringify(sent.body);
  const origin = sent.origin === undefined ? (method === 'POST' ? app.signingUrl : null) : sent.origin;
  const headers: Record<string, string> = {
    host: sent.host ?? `localhost:${app.port}`,
    ...(origin ? { origin } : {}),
    ...(body !== undefined ? { 'content-type': sent.contentType ?? 'application/json' } : {}),
  };
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: app.port, path, method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

export const post = (app: PageHost, path: string, body: unknown, sent: Omit<Sent, 'body'> = {}) =>
  send(app, path, { ...sent, body });

/** The engine's own passkey book: its records sealed with the audit signing key, as the bot writes them. */
export const bookOf = (app: Pick<ApprovalApp, 'engine'>) => app.engine.passkeys.signatures().book;

/** `/cngn passkey` as `user`: the one-time token of the registration link it answers with. */
export async function registrationToken(app: SigningApp, user: string): Promise<string> {
  const answer = await commandAnswer(app, 'passkey', user);
  const link = new RegExp(`${app.signingUrl}/passkeys/register\\?t=([A-Za-z0-9_-]+)`).exec(
    JSON.stringify(answer.body),
  );
  if (!link?.[1]) throw new Error('no registration link in the answer');
  return link[1];
}

/** The registration page's two calls with a software authenticator: the request id it was filed as. */
export async function fileRegistration(app: SigningApp, authenticator: SoftwareAuthenticator, name: string) {
  const token = await registrationToken(app, authenticator.options.user);
  const options = await post(app, '/passkeys/api/register/options', { token });
  if (options.status !== 200) throw new Error(`register/options: ${options.text}`);
  const response = authenticator.registrationResponse(options.json.options.challenge);
  return post(app, '/passkeys/api/register/file', {
    token,
    name,
    expectedChallenge: options.json.options.challenge,
    response,
  });
}

/**
 * Register `authenticator`'s passkey and have `approver` approve it: with a click in the channel while
 * they hold no live passkey (a new install's first passkeys), else signed with their passkey, as the
 * rule asks of an approver who holds one. `device`: the approver's authenticator (default: the one made
 * in this process for a live passkey of theirs in the book).
 */
export async function registerApproved(
  app: SigningApp,
  authenticator: SoftwareAuthenticator,
  approver: string,
  device?: SoftwareAuthenticator,
): Promise<void> {
  const filed = await fileRegistration(app, authenticator, `${authenticator.options.user} laptop`);
  if (filed.status !== 200) throw new Error(`register/file: ${filed.text}`);
  const signer = device ?? (await deviceOf(app, approver));
  if (signer) await signedApproval(app, filed.json.requestId, approver, signer);
  else await approve(app, filed.json.requestId, approver);
  await waitUntil(
    async () => Boolean(await bookOf(app).byCredential(authenticator.credentialId)),
    'the passkey in the book',
  );
}

/** The authenticator of one of `user`'s live passkeys, if this process made it; undefined when they hold none. */
async function deviceOf(app: SigningApp, user: string): Promise<SoftwareAuthenticator | undefined> {
  const held = await bookOf(app).heldBy(user);
  if (held.length === 0) return undefined;
  const device = held.map((p) => SoftwareAuthenticator.withCredential(p.credentialId)).find(Boolean);
  if (!device) throw new Error(`${user} holds a passkey this test did not make: pass their device`);
  return device;
}

/** `user` approves request `id` signed with `device`, over its current round, as the sign page does. */
async function signedApproval(app: SigningApp, id: string, user: string, device: SoftwareAuthenticator) {
  const request = await app.engine.get(id);
  if (!request) throw new Error(`no request ${id}`);
  const made = await app.engine.passkeys.signingChallenge(id, user, request.round);
  if (!made.ok || !('challenge' in made)) throw new Error(`no challenge: ${JSON.stringify(made)}`);
  const evidence = device.assert(made.challenge, made.nonce);
  const approved = await app.engine.approve(id, user, { ...seenOf(request), evidence });
  if (!approved.ok) throw new Error(`signed approval refused: ${JSON.stringify(approved)}`);
}

/** A one-time signing link's token for `user` approving round `round` of `requestId`. */
export function signingToken(app: ApprovalApp, user: string, requestId: string, round = 0): Promise<string> {
  return bookOf(app).issueLink({ page: 'sign', user, team: 'T1', requestId, round });
}

/** The assertion as @simplewebauthn/browser's startAuthentication returns it. */
export function assertionJson(evidence: ApprovalEvidence): AuthenticationResponseJSON {
  return {
    id: evidence.credentialId,
    rawId: evidence.credentialId,
    type: 'public-key',
    response: {
      authenticatorData: evidence.authenticatorData,
      clientDataJSON: evidence.clientDataJSON,
      signature: evidence.signature,
      ...(evidence.userHandle ? { userHandle: evidence.userHandle } : {}),
    },
    clientExtensionResults: {},
    authenticatorAttachment: 'platform',
  };
}

/** The sign page's calls: its options, then `authenticator`'s assertion over them (misbehaving or not). */
export async function signWith(
  app: SigningApp,
  token: string,
  authenticator: SoftwareAuthenticator,
  bad: Parameters<SoftwareAuthenticator['assert']>[2] = {},
): Promise<{ options: Answer; submitted: Answer }> {
  const options = await post(app, '/passkeys/api/sign/options', { token });
  if (options.status !== 200) throw new Error(`sign/options: ${options.text}`);
  const { challenge } = options.json.options;
  const evidence = authenticator.assert(challenge, options.json.nonce, bad);
  const submitted = await post(app, '/passkeys/api/sign/submit', {
    token,
    nonce: options.json.nonce,
    figuresDigest: options.json.figuresDigest,
    response: assertionJson(evidence),
  });
  return { options, submitted };
}

/** An approver's browser tab with its own device: a virtual platform authenticator that verifies the user. */
export async function deviceTab(browser: Browser): Promise<{ page: Page; violations: string[] }> {
  const page = await newPage(browser);
  const violations: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) violations.push(message.text());
  });
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
    },
  });
  return { page, violations };
}

/** Where a passkey page says how it went (working, refused, done). */
export const outcome = (page: Page): Locator => page.locator('.outcome');

/** Register on the page opened at `url`: the name, "Create passkey", and the page's answer. */
export async function registerAt(page: Page, url: string, name: string): Promise<string> {
  await page.goto(url);
  await page.getByLabel('Name').fill(name);
  await page.getByRole('button', { name: 'Create passkey' }).click();
  await contains(outcome(page), 'Filed: waiting for another approver (');
  return /AR-[0-9A-F]+/.exec((await outcome(page).textContent()) ?? '')?.[0] ?? '';
}
