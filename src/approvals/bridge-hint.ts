// What an unsigned bridge callback may put in a request's thread: anyone can send one, so its status is a
// few plain words and its link is shown only if it is a well-formed https URL, in a code span unless it
// is a checked explorer page. The tracker confirms with the service before anything is settled.
import { checkedExplorerUrl } from '../format/explorer.js';

/** The callback's link, if it may be kept, and the note the thread shows. */
export function callbackNote(hint: { status?: string | undefined; explorerLink?: string | undefined }): {
  explorerLink: string | undefined;
  note: string;
} {
  const explorerLink = httpsUrl(hint.explorerLink);
  const link = explorerLink ? `, ${shownLink(explorerLink)}` : '';
  const note = `Bridge callback received: ${plainWords(hint.status) || 'no status given'}${link} — confirming with the service`;
  return { explorerLink, note };
}

/** An unsigned link is shown only if it is a well-formed https URL. */
function httpsUrl(text: string | undefined): string | undefined {
  if (!text) return undefined;
  try {
    const url = new URL(text);
    return url.protocol === 'https:' ? url.toString() : undefined;
  } catch {
    return undefined;
  }
}

/**
 * An unsigned link as a note shows it (notes are escaped when shown): a checked explorer page as is,
 * any other in a code span, where Slack links nothing.
 */
function shownLink(url: string): string {
  const checked = checkedExplorerUrl(url);
  if (checked) return checked;
  const shown = url.length > 200 ? `${url.slice(0, 200)}…` : url;
  return `a link to an unknown site \`${shown.replace(/`/g, "'")}\``;
}

/** Unsigned text shown to people: a few plain words at most. */
function plainWords(text: string | undefined): string {
  return (text ?? '')
    .replace(/[^\w .-]/g, '')
    .slice(0, 40)
    .trim();
}
