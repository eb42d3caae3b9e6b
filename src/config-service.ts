// The variables that carry a credential to another host: the service's API key. A key that cannot be
// a header is refused at start rather than found out by the first call.
import { z } from 'zod';

const blank = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? undefined : v);

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
      /^(?!cngn_(test|live)_)|^cngn_(test|live)_[A-Za-z0-9_-]+$/,
      'must be the key alone: letters, digits, _ and - after cngn_test_ or cngn_live_ (no space, line break or quote)',
    )
    .optional(),
);
