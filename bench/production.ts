// The node flags and environment `npm start` runs the bot with (package.json's start script, e.g. V8's
// young-generation size and glibc's malloc settings), so a bench measures the bot as it runs in
// production and not a default node. Read from the script itself, so the two never drift apart.
import { readFileSync } from 'node:fs';

export interface ProductionNode {
  /** Flags for node before the script (e.g. `--max-semi-space-size=1`). */
  flags: string[];
  /** Variables the start script sets (e.g. `MALLOC_ARENA_MAX`). */
  env: Record<string, string>;
}

export function productionNode(): ProductionNode {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    scripts: { start: string };
  };
  const words = pkg.scripts.start.split(/\s+/).filter(Boolean);
  const env: Record<string, string> = {};
  const flags: string[] = [];
  let i = 0;
  for (; i < words.length && /^[A-Z_][A-Z0-9_]*=/.test(words[i]!); i++) {
    const [name = '', ...value] = words[i]!.split('=');
    env[name] = value.join('=');
  }
  if (words[i] === 'exec') i++;
  if (words[i] !== 'node') throw new Error(`the start script does not run node: ${pkg.scripts.start}`);
  for (i++; i < words.length && words[i]!.startsWith('--'); i++) flags.push(words[i]!);
  return { flags, env };
}

/** How the bench labels it. */
export function productionLabel(node: ProductionNode = productionNode()): string {
  const parts = [...Object.entries(node.env).map(([k, v]) => `${k}=${v}`), ...node.flags];
  return parts.length > 0 ? `with npm start's ${parts.join(' ')}` : 'with npm start’s defaults';
}
