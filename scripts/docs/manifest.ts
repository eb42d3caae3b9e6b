// manifest.yml's /cngn usage hint, made from the command registry (src/slack/registry.ts): every
// subcommand by name, in the help's order. The rest of the manifest is written by hand; only the
// `usage_hint:` line is replaced. Its bot scopes are checked against src/slack/scopes.ts by
// test/docs.test.ts.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { REGISTRY } from '../../src/slack/commands/registry.js';

export const MANIFEST_FILE = 'manifest.yml';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const USAGE_HINT = /^(\s*usage_hint: ).*$/m;

/** What Slack shows under /cngn as it is typed. */
export function usageHint(): string {
  return REGISTRY.map((entry) => entry.name).join(' | ');
}

/** manifest.yml as committed, with its usage hint as the registry makes it. */
export function manifestWithUsageHint(text = readFileSync(join(ROOT, MANIFEST_FILE), 'utf8')): string {
  if (!USAGE_HINT.test(text)) throw new Error(`${MANIFEST_FILE} has no usage_hint line for /cngn`);
  return text.replace(USAGE_HINT, (_line, lead: string) => `${lead}${JSON.stringify(usageHint())}`);
}

/** The bot scopes manifest.yml asks for: the list under `oauth_config.scopes.bot`. */
export function manifestBotScopes(text = readFileSync(join(ROOT, MANIFEST_FILE), 'utf8')): string[] {
  const block = /^\s*bot:\s*\n((?:\s+- .*\n?)+)/m.exec(text)?.[1] ?? '';
  return [...block.matchAll(/^\s+- ([\w:.]+)/gm)].map((m) => m[1] ?? '');
}
