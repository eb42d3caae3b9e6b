// The variables that carry a credential to another host: the service's API key and origin, and the
// Slack Web API's origin (the bot token goes there). A key that cannot be a header, or an origin in
// clear text, is refused at start rather than found out by the first call.
import { z } from 'zod';

const blank = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? undefined : v);

/** Emulators and tests on this machine; nothing there crosses a network. */
function loopback(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127(\.\d{1,3}){3}$/.test(hostname);
}

/** A bearer credential goes only over https, or in clear text to this machine alone. */
const credentialOrigin = (example: string) =>
  z.url(`must be a URL such as ${example}`).refine((text) => {
    const url = new URL(text);
    return url.protocol === 'https:' || (url.protocol === 'http:' && loopback(url.hostname));
  }, `must be an https:// URL such as ${example} (http:// only to 127.0.0.1, ::1 or localhost): the credential it carries would cross the network in clear text`);

/** Placed in the configuration's schema in its documented order (docs/configuration.md lists it). */
export const SLACK_API_URL = z.preprocess(blank, credentialOrigin('https://slack.com/api/').optional());

export const CNGN_BASE_URL = z.preprocess(blank, credentialOrigin('https://api.cngn.co').optional());

/**
 * Trimmed like the same key from CNGN_API_KEY_FILE, so both give one key (and one key id); what
 * remains must be a key's characters alone, or every call would fail before it left, as a bad header.
 */
export const CNGN_API_KEY = z.preprocess(
  blank,
  z
    .string()
    .trim()
    .regex(/^cngn_(test|live)_/, 'must start with cngn_test_ or cngn_live_')
    // Said only of a key with the right start, so a wrong start is one problem, not two.
    .regex(
      /^(?!cngn_(test|live)_)|^cngn_(test|live)_[!#-~]+$/,
      'must be the key alone: visible characters after cngn_test_ or cngn_live_ (no space, line break or quote)',
    )
    .optional(),
);
