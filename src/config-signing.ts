// Passkey-signed approvals (docs/passkeys.md): CNGN_SIGNED_APPROVALS, and CNGN_SIGNING_URL, where
// approvers' browsers reach the bot's signing pages (PUBLIC_URL when unset).
import { isIP } from 'node:net';
import { z } from 'zod';
import { parseSigningRule, type SigningRule } from './access/index.js';
import { parsedBy } from './config-parse.js';

const blank = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? undefined : v);

/**
 * Passkey-signed approvals (docs/passkeys.md): CNGN_SIGNED_APPROVALS, and where approvers' browsers
 * reach the signing pages. The relying party id is the signing URL's host; the origin its
 * scheme://host[:port], as a browser reports it in an assertion.
 */
export interface SigningConfig {
  rule: SigningRule;
  rpId: string;
  origin: string;
  /** The rule may be switched while the bot runs: the local workbench's sandbox only (wiring/startup.ts). */
  switchable?: boolean;
}

/** Why a signing URL naming an IP address is refused (the relying party id must be a domain). */
const IP_HOST =
  "use a host name, e.g. http://localhost:3000: browsers refuse an IP address as a passkey's site";

/** Does the URL name its host by an IP address (URL.hostname spells IPv6 in brackets)? */
const namesAnIp = (url: URL) => isIP(url.hostname.replace(/^\[|\]$/g, '')) !== 0;

/**
 * CNGN_SIGNING_URL → its origin. Browsers make and use passkeys only in a secure context (https, or
 * plain http on localhost) and for a host name, never an IP address. The path is dropped: the relying
 * party is the host, the origin what a browser reports.
 */
function parseSigningUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw new Error('must be a URL such as https://desk.example.com');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error('must be an https:// URL');
  if (namesAnIp(url)) throw new Error(IP_HOST);
  if (url.protocol === 'http:' && url.hostname !== 'localhost') {
    throw new Error(
      'must be https:// (plain http:// only on localhost): browsers use passkeys only in a secure context',
    );
  }
  return url.origin;
}

/** Spread into the configuration's schema (docs/configuration.md lists it from there). */
export const SIGNING_VARIABLES = {
  CNGN_SIGNING_URL: z.preprocess(blank, parsedBy(parseSigningUrl).optional()),
  CNGN_SIGNED_APPROVALS: z.preprocess(
    blank,
    parsedBy(parseSigningRule).default({ mode: 'off' } satisfies SigningRule),
  ),
};

/**
 * Signed approvals need somewhere for approvers' browsers to sign: one line saying what to set, or,
 * when PUBLIC_URL stands in for CNGN_SIGNING_URL, why it cannot (an IP address). A malformed rule,
 * CNGN_SIGNING_URL or PUBLIC_URL has its own line (a plain http:// one on another host too).
 */
export function signingProblems(
  env: Record<string, string | undefined>,
  has: (name: string) => boolean,
): string[] {
  if (has('CNGN_SIGNING_URL')) return [];
  let rule: SigningRule;
  try {
    rule = parseSigningRule(env.CNGN_SIGNED_APPROVALS ?? '');
  } catch {
    return [];
  }
  if (rule.mode === 'off') return [];
  if (has('PUBLIC_URL'))
    return publicUrlNamesAnIp(env.PUBLIC_URL)
      ? [`PUBLIC_URL (the signing URL while CNGN_SIGNING_URL is unset): ${IP_HOST}`]
      : [];
  return [
    "CNGN_SIGNING_URL: required with CNGN_SIGNED_APPROVALS — the https:// address where approvers' browsers reach the bot's HTTP port (its host is the passkeys' relying party; http://localhost:<port> for a trial on this machine), or set PUBLIC_URL",
  ];
}

function publicUrlNamesAnIp(text: string | undefined): boolean {
  try {
    return namesAnIp(new URL((text ?? '').trim()));
  } catch {
    return false; // a malformed PUBLIC_URL has its own line
  }
}

/** The signing settings in effect; undefined when approvals are made with a click. */
export function signingOf(rule: SigningRule, signingUrl: string | undefined): SigningConfig | undefined {
  if (rule.mode === 'off' || !signingUrl) return undefined;
  const url = new URL(signingUrl);
  return { rule, rpId: url.hostname, origin: url.origin };
}
