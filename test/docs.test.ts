// The documentation as a newcomer meets it: the README stays short, every relative link in it and in
// docs/ leads to a file (and a heading, when it names one), every page is linked from somewhere, and
// the generated configuration page is what `npm run docs` makes from the configuration schema today,
// and every file or folder of the tree the text names in a code span is there. The Slack app manifest's
// usage hint is what `npm run docs` makes from the command registry, and its scopes are the features'.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { AUDIT_VERIFIER_SCRIPT, auditVerifierScript } from '../scripts/docs/audit-verifier.js';
import { CONFIGURATION_PAGE, configurationPage } from '../scripts/docs/configuration.js';
import {
  MANIFEST_FILE,
  manifestBotScopes,
  manifestWithUsageHint,
  usageHint,
} from '../scripts/docs/manifest.js';
import { REGISTRY } from '../src/slack/commands/registry.js';
import { BOT_SCOPES } from '../src/slack/runtime/scopes.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

function markdownFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return markdownFiles(path);
    return entry.name.endsWith('.md') ? [path] : [];
  });
}

const PAGES = ['README.md', ...markdownFiles('docs')];
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

/** The text a reader sees as prose: fenced code blocks and inline code hold no links. */
function prose(markdown: string): string {
  return markdown.replace(/^(`{3,}|~{3,})[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '');
}

/** The targets of inline links and images: `[text](target)`, `![alt](target "title")`. */
function linkTargets(markdown: string): string[] {
  return [...prose(markdown).matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1] ?? '');
}

/** The anchors GitHub gives a page's headings: lower case, punctuation dropped, spaces as hyphens. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  const withoutCode = markdown.replace(/^(`{3,}|~{3,})[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
  for (const match of withoutCode.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const text = (match[1] ?? '').replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/<[^>]+>/g, '');
    const base = text
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    out.add(count === 0 ? base : `${base}-${count}`);
  }
  return out;
}

const external = (target: string) => /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//');

/** Every relative link of one page that leads nowhere, as `page: target (why)`. */
function brokenLinks(page: string): string[] {
  const broken: string[] = [];
  for (const target of linkTargets(read(page))) {
    if (external(target)) continue;
    const [path = '', anchor] = target.split('#');
    if (path.startsWith('/')) {
      broken.push(`${page}: ${target} (absolute: links must be relative to the page)`);
      continue;
    }
    const file = path === '' ? page : join(dirname(page), decodeURIComponent(path));
    if (relative(ROOT, join(ROOT, file)).startsWith('..')) {
      broken.push(`${page}: ${target} (outside the repository)`);
    } else if (!existsSync(join(ROOT, file))) {
      broken.push(`${page}: ${target} (no such file)`);
    } else if (anchor && statSync(join(ROOT, file)).isFile() && file.endsWith('.md')) {
      if (!anchors(read(file)).has(anchor)) broken.push(`${page}: ${target} (no heading #${anchor})`);
    }
  }
  return broken;
}

/** The repository's own top-level folders and those of src/: a path starting with one is a path of the tree. */
const TOP_FOLDERS = new Set(['src', 'test', 'docs', 'scripts', 'prove', 'bench', '.ci']);
const SRC_FOLDERS = new Set(
  readdirSync(join(ROOT, 'src'), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name),
);

/** The paths of the tree a page names in inline code (`src/…`, `test/…`, or `approvals/ports.ts` under src/). */
function namedPaths(markdown: string): string[] {
  const spans = [...markdown.matchAll(/`([^`\n]+)`/g)].map((m) => (m[1] ?? '').trim());
  return spans.filter((span) => {
    if (!/^[\w.*-]+(?:\/[\w.*-]+)*\/?$/.test(span) || !span.includes('/')) return false;
    const first = span.split('/')[0] ?? '';
    return TOP_FOLDERS.has(first) || SRC_FOLDERS.has(first);
  });
}

/** Whether a named path is there: from the root, or under src/; a `*` in the last part matches any text. */
function pathExists(path: string): boolean {
  const first = path.split('/')[0] ?? '';
  const full = join(ROOT, TOP_FOLDERS.has(first) ? '' : 'src', path.replace(/\/$/, ''));
  if (!full.includes('*')) return existsSync(full);
  const pattern = new RegExp(
    `^${basename(full)
      .replace(/[.+?^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')}$`,
  );
  return existsSync(dirname(full)) && readdirSync(dirname(full)).some((name) => pattern.test(name));
}

/** The entries of the README's source map (the fenced block that starts at `src/`), as paths of the tree. */
function sourceMapPaths(readme: string): string[] {
  const block = /^```text\nsrc\/\n([\s\S]*?)^```/m.exec(readme)?.[1] ?? '';
  const paths: string[] = [];
  let folder = '';
  for (const [, indent = '', entry = ''] of block.matchAll(/^( +)(\S+)/gm)) {
    if (indent.length === 2) {
      folder = entry.endsWith('/') ? entry : '';
      paths.push(`src/${entry}`);
    } else if (indent.length > 2) paths.push(`src/${folder}${entry}`);
  }
  return paths;
}

describe('the documentation', () => {
  it('keeps the README to at most 200 lines', () => {
    expect(read('README.md').split('\n').length).toBeLessThanOrEqual(200);
  });

  it('has no relative link that leads nowhere, in the README or in docs/', () => {
    expect(PAGES.flatMap(brokenLinks)).toEqual([]);
  });

  it('names only files and folders that are in the tree, in the README and in docs/', () => {
    const missing = PAGES.flatMap((page) =>
      namedPaths(read(page))
        .filter((path) => !pathExists(path))
        .map((path) => `${page}: ${path}`),
    );
    const map = sourceMapPaths(read('README.md'));
    expect(map).toContain('src/approvals/ports.ts');
    missing.push(...map.filter((path) => !pathExists(path)).map((path) => `README.md source map: ${path}`));
    expect(missing).toEqual([]);
  });

  it('links every page of docs/ from the README or another page', () => {
    const linked = new Set(
      PAGES.flatMap((page) =>
        linkTargets(read(page))
          .filter((target) => !external(target))
          .map((target) => join(dirname(page), decodeURIComponent(target.split('#')[0] ?? '')))
          .filter((path) => path !== page),
      ),
    );
    expect(PAGES.filter((page) => page !== 'README.md' && !linked.has(page))).toEqual([]);
  });

  it('reads the paths a page names as paths of the tree', () => {
    const page =
      '`src/approvals/ports.ts`, `approvals/ports.ts`, `test/workbench/browser-*.test.ts`, `a/b`, `dist/main.js`, `/slack/events`';
    expect(namedPaths(page)).toEqual([
      'src/approvals/ports.ts',
      'approvals/ports.ts',
      'test/workbench/browser-*.test.ts',
    ]);
    expect(namedPaths(page).every(pathExists)).toBe(true);
    expect(pathExists('src/approvals/no-such-file.ts')).toBe(false);
    expect(pathExists('test/workbench/nothing-*.test.ts')).toBe(false);
  });

  it('reads links, code spans and heading anchors as GitHub does', () => {
    const page = '# Title\n\n## Set-up with Slack\n\n[ok](#set-up-with-slack) [gone](#nowhere)\n';
    expect(anchors(page)).toEqual(new Set(['title', 'set-up-with-slack']));
    expect(linkTargets(page)).toEqual(['#set-up-with-slack', '#nowhere']);
    expect(linkTargets('`[code](not-a-link.md)` and [real](docs/a.md "title")')).toEqual(['docs/a.md']);
    expect(anchors('## `/cngn` subcommands\n## Webhooks → channel\n## A\n## A\n')).toEqual(
      new Set(['cngn-subcommands', 'webhooks--channel', 'a', 'a-1']),
    );
  });

  it('has the configuration page the configuration schema gives (npm run docs rewrites it)', () => {
    expect(read(CONFIGURATION_PAGE)).toBe(configurationPage());
  });

  it('has the standalone audit verifier the bot’s own audit code builds (npm run docs rewrites it)', async () => {
    // An auditor runs this file: it must be the very code the bot checks its archive with.
    expect(read(AUDIT_VERIFIER_SCRIPT)).toBe(await auditVerifierScript());
  });
});

describe('the Slack app manifest', () => {
  const manifest = read(MANIFEST_FILE);

  it('lists every /cngn subcommand of the registry in its usage hint (npm run docs rewrites it)', () => {
    expect(manifest).toBe(manifestWithUsageHint(manifest));
    for (const entry of REGISTRY) expect(usageHint().split(' | ')).toContain(entry.name);
  });

  it('asks for exactly the scopes the features need (src/slack/scopes.ts)', () => {
    expect(manifestBotScopes(manifest).sort()).toEqual(BOT_SCOPES.map((need) => need.scope).sort());
  });

  it('subscribes to the events the bot listens for, Slack removing the app among them', () => {
    const events = /bot_events:\s*\n((?:\s+- .*\n?)+)/.exec(manifest)?.[1] ?? '';
    expect([...events.matchAll(/- (\w+)/g)].map((m) => m[1])).toEqual([
      'app_home_opened',
      'app_uninstalled',
      'tokens_revoked',
      'subteam_members_changed',
      'user_change',
      'team_join',
    ]);
  });
});
