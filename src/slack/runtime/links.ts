// Command text as typed: Slack's link markup and entity escapes undone.

/**
 * The app asks Slack to escape the command text (so `@person` arrives as `<@U…|name>`); links and
 * e-mail addresses then arrive wrapped too (`<http://x.ng|x.ng>`, `<mailto:a@b.ng|a@b.ng>`): they are
 * unwrapped to what was typed (the label; the target without `mailto:` when there is none). Slack also
 * writes a typed `&`, `<`, `>` as `&amp;`, `&lt;`, `&gt;`: decoded after the unwrapping (so a typed `<`
 * never makes markup), `&amp;` last (a typed `&lt;` stays `&lt;`). Mentions of people and channels stay
 * as Slack sent them.
 */
export function unwrapLinks(text: string): string {
  // Most commands carry neither markup nor an entity (`balance`): nothing to undo, nothing to allocate.
  if (!text.includes('<') && !text.includes('&')) return text;
  return text
    .replace(
      /<((?:mailto:|https?:\/\/)[^|>\s]+)(?:\|([^>]*))?>/g,
      (_, target: string, label: string | undefined) => label || target.replace(/^mailto:/, ''),
    )
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}
