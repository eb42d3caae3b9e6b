// Slack mrkdwn from text the bot does not control. Slack reads `<…>` as a mention (`<!channel>`,
// `<@U…>`) or a link (`<https://…|label>`) and `&…;` as an entity, so every value that comes from a
// person, the service or a webhook goes through escapeMrkdwn before it enters a mrkdwn text, once.
// plain_text objects are shown as typed and need none. The bot's own markup is built here too.
import { checkedExplorerUrl } from './explorer.js';

/** `&` → `&amp;`, `<` → `&lt;`, `>` → `&gt;`: the text reads as typed and can mention or link nothing. */
export function escapeMrkdwn(value: string | number): string {
  return String(value).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** `<url|label>` for an explorer URL the bot checked (https, known host); undefined for any other. */
export function explorerLink(url: string | null | undefined, label: string): string | undefined {
  const checked = checkedExplorerUrl(url);
  return checked ? `<${escapeMrkdwn(checked)}|${escapeMrkdwn(label)}>` : undefined;
}

/** https on the workspace's own slack.com host (Enterprise Grid and GovSlack included). */
const SLACK_PERMALINK =
  /^https:\/\/[a-z0-9-]+(\.[a-z0-9-]+)*\.slack(-gov)?\.com\/archives\/[A-Z0-9]+\/p\d+(\?[\w.=&-]*)?$/;

/** `<url|label>` for a message permalink Slack gave (chat.getPermalink); undefined for anything else. */
export function slackPermalink(url: string | null | undefined, label: string): string | undefined {
  return url && SLACK_PERMALINK.test(url) ? `<${escapeMrkdwn(url)}|${escapeMrkdwn(label)}>` : undefined;
}

/** A link from outside that is not a checked explorer page: shown whole as inert text, never linked. */
export function inertUrl(url: string): string {
  const shown = url.length > 200 ? `${url.slice(0, 200)}…` : url;
  return `\`${escapeMrkdwn(shown.replace(/`/g, "'"))}\``;
}

const SLACK_ID = /^[A-Z0-9]{2,}$/;

/** `<@U…>` for a Slack user id; anything else is shown as text and pings nobody. */
export function mentionUser(id: string): string {
  return SLACK_ID.test(id) ? `<@${id}>` : escapeMrkdwn(id);
}

/** `<#C…>` for a Slack channel id; anything else is shown as text. */
export function mentionChannel(id: string): string {
  return SLACK_ID.test(id) ? `<#${id}>` : escapeMrkdwn(id);
}
