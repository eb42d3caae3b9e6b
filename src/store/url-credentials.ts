// The credentials of STORE_URL (redis://, postgres://), so that no message about the store, and no log
// line, carries them: a URL a driver cannot parse is the case to plan for, since its error then holds
// the URL as written and nothing has said where its password starts.

/**
 * The password of `url` as it may surface in text: as written and percent-decoded. When the URL does
 * not parse, read from the raw text: the userinfo ends at the last `@` of the authority, or of the
 * whole text when the password itself holds a `/` (both are given: redacting more is harmless).
 */
export function urlPasswordForms(url: string): string[] {
  const passwords = queryPasswords(url);
  try {
    const { password } = new URL(url);
    if (password) passwords.push(password);
  } catch {
    const start = url.indexOf('://');
    if (start >= 0) {
      const rest = url.slice(start + 3);
      const authority = rest.split(/[/?#]/, 1)[0] ?? '';
      for (const userinfo of [authority, rest]) {
        const at = userinfo.lastIndexOf('@');
        const colon = userinfo.indexOf(':');
        if (at > 0 && colon >= 0 && colon < at) passwords.push(userinfo.slice(colon + 1, at));
      }
    }
  }
  const forms = new Set<string>();
  for (const password of passwords.filter(Boolean)) {
    forms.add(password);
    forms.add(decodedOrAsIs(password));
  }
  return [...forms];
}

/** PostgreSQL's driver also takes a password as a query parameter (`postgres://desk@db/desk?password=…`). */
const QUERY_PASSWORD = /([?&]password=)([^&#]*)/gi;

function queryPasswords(url: string): string[] {
  return [...url.matchAll(QUERY_PASSWORD)].map(([, , written]) => written ?? '');
}

/**
 * `url` as written with its passwords' text left out, for a URL that does not parse: the query's,
 * and the userinfo's up to the last `@` of the whole text (a password may hold a `/`). What is left
 * stays the same when only a password changes.
 */
export function rawUrlWithoutPasswords(url: string): string {
  const out = url.replace(QUERY_PASSWORD, '$1');
  const start = out.indexOf('://');
  if (start < 0) return out;
  const rest = out.slice(start + 3);
  const at = rest.lastIndexOf('@');
  const colon = rest.indexOf(':');
  if (at <= 0 || colon < 0 || colon >= at) return out;
  return `${out.slice(0, start + 3)}${rest.slice(0, colon + 1)}${rest.slice(at)}`;
}

/** A `%` that does not start an escape (`%zz`) leaves the text as written. */
function decodedOrAsIs(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * The message of `error` without `url` and without its password, in any of its forms: for a message
 * that names what went wrong with the store and nothing of how to log into it.
 */
export function scrubbed(error: unknown, url: string): string {
  const text = (error as { message?: unknown } | null)?.message;
  const message = typeof text === 'string' ? text : String(error);
  let out = url ? message.split(url).join('STORE_URL') : message;
  // Longest first: a decoded form inside a longer written one must not leave the rest behind.
  const forms = urlPasswordForms(url).sort((a, b) => b.length - a.length);
  for (const form of forms) out = out.split(form).join('***');
  return out;
}
