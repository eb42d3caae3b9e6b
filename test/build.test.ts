// The production build (scripts/build.mjs): what `npm start` runs is one bundle of compiled
// JavaScript that serves the bot, built again only when a source changed, and a module in it still
// finds files next to its TypeScript source.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build, buildIfStale, isFresh } from '../scripts/build.mjs';
import { FakeSlack } from './support/fake-slack.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
// Inside the project, so the bundle resolves the packages it leaves out (sqlite3) as dist/ does.
const WORK = `dist/test-build-${process.pid}`;
const BUILD_MS = 120_000;

beforeAll(() => mkdirSync(join(ROOT, WORK), { recursive: true }));
afterAll(() => rmSync(join(ROOT, WORK), { recursive: true, force: true }));

describe('the production bundle', () => {
  let slack: FakeSlack;
  let inputs: string[];
  const outfile = `${WORK}/bot/main.js`;

  beforeAll(async () => {
    slack = await FakeSlack.start();
    inputs = await build({ outfile });
  }, BUILD_MS);
  afterAll(() => slack.stop());

  it('holds the bot and none of the tests', () => {
    const files = inputs.map((path) => relative(ROOT, path).split('\\').join('/'));
    expect(files).toContain('src/main.ts');
    expect(files).toContain('src/slack/app.ts');
    expect(files.filter((file) => file.startsWith('test/') || file.startsWith('bench/'))).toEqual([]);
  });

  it('serves /healthz from plain node, with the embedded sandbox, and stops on SIGTERM', async () => {
    const bot = spawn(process.execPath, [outfile], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH,
        SLACK_BOT_TOKEN: 'xoxb-build-test',
        SLACK_SIGNING_SECRET: 'build-test-secret',
        SLACK_API_URL: slack.apiUrl,
        STORE_URL: 'memory://',
        PORT: '0',
      },
      stdio: ['ignore', 'ignore', 'pipe'], // the log is on stderr
    });
    try {
      let url = '';
      for await (const line of createInterface({ input: bot.stderr })) {
        const entry = JSON.parse(line) as { message?: string; url?: string };
        if (entry.message === 'cngn-desk is running' && entry.url) {
          url = entry.url;
          break;
        }
      }
      const health = await fetch(`${url}/healthz`);
      expect(health.status).toBe(200);
      bot.kill('SIGTERM');
      const [code] = await once(bot, 'exit');
      expect(code).toBe(0);
    } finally {
      bot.kill('SIGKILL');
    }
  });
});

describe('a module in the bundle', () => {
  const source = `${WORK}/where/where.ts`;
  const outfile = `${WORK}/where/out/where.js`;

  beforeAll(() => {
    mkdirSync(join(ROOT, WORK, 'where'), { recursive: true });
    writeFileSync(
      join(ROOT, source),
      'export const where = { url: import.meta.url, dirname: import.meta.dirname, filename: import.meta.filename };\n',
    );
  });

  it('sees import.meta of its own source file, so paths relative to it work from dist/ as from src/', async () => {
    await build({ entry: source, outfile });
    const { where } = (await import(pathToFileURL(join(ROOT, outfile)).href)) as {
      where: { url: string; dirname: string; filename: string };
    };
    expect(where).toEqual({
      url: pathToFileURL(join(ROOT, source)).href,
      dirname: join(ROOT, WORK, 'where'),
      filename: join(ROOT, source),
    });
  });

  it('is built again only when one of its inputs changed', async () => {
    const options = { entry: source, outfile: `${WORK}/where/again/where.js` };
    expect(await buildIfStale(options)).toBe('built');
    expect(isFresh(options.outfile)).toBe(true);
    expect(await buildIfStale(options)).toBe('fresh');
    const later = new Date(Date.now() + 60_000);
    utimesSync(join(ROOT, source), later, later);
    expect(isFresh(options.outfile)).toBe(false);
    expect(await buildIfStale(options)).toBe('built');
    expect(isFresh(options.outfile)).toBe(true);
  });
});
