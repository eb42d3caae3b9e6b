// The links to the bot's passkey pages (docs/passkeys.md): `<signing URL>/passkeys/register?t=<token>`
// and `<signing URL>/passkeys/sign?t=<token>`, where the token is the passkey book's one-time link
// (PasskeyBook.issueLink: 10 minutes, used once, bound to one Slack user, and for signing to one round
// of one request). The link carries nothing else: the page reads what it is for from the book.

/** The page a link opens: registering a passkey, or signing one approval. */
export type PasskeyPage = 'register' | 'sign';

/** The link to `page` under the signing URL (CNGN_SIGNING_URL, else PUBLIC_URL) for one token. */
export function passkeyPageLink(signingUrl: string, page: PasskeyPage, token: string): string {
  const url = new URL(`/passkeys/${page}`, `${signingUrl.replace(/\/+$/, '')}/`);
  url.searchParams.set('t', token);
  return url.toString();
}
