// The node flags and environment `npm start` runs the bot with (package.json's start script, e.g. V8's
// young-generation size and glibc's malloc settings), so a bench measures the bot as it runs in
// production and not a default node. Read from the script itself, so the two never drift apart.
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from '../scripts/build.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const builds = new Map<string, Promise<string>>();

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

/**
 * A bench's app built as `npm start` builds the bot (scripts/build.mjs: one bundle, run by node with no
 * TypeScript loader) into bench-results/<name>/; the path of the script to run. Under tsx the app would
 * carry what the bot in production has not: a loader thread, the transform of each module loaded late,
 * and a wrapper that names each function as it is made. Built once a process.
 */
export function productionScript(entry: string): Promise<string> {
  const known = builds.get(entry);
  if (known) return known;
  const name = basename(entry, '.ts');
  const outfile = `bench-results/${name}/${name}.js`;
  const built = build({ entry, outfile }).then(() => join(ROOT, outfile));
  builds.set(entry, built);
  return built;
}

/** Node's arguments before `script`: tsx's loader for a TypeScript file, none for a built one. */
export const loaderFor = (script: string): string[] => (script.endsWith('.ts') ? ['--import', 'tsx'] : []);
