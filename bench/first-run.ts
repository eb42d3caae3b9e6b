// First run, measured: a fresh clone of this repository → `npm install` → `npm start` (no environment
// at all: the workbench and the embedded sandbox) → the first withdrawal filed by Ada and approved by
// Bola (Approve, then the review modal's Approve ₦…) in Chromium, driven by Playwright. Prints the
// split: install, start-up to a usable page, each click to its visible result, and the whole flow
// after install. Targets: start-up < 5 s, each
// click < 300 ms, the whole flow after install < 30 s.
//
//   npm run bench:first-run            (BENCH_KEEP=1 keeps the clone; CHROMIUM_PATH picks the browser)
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { chromium, type Locator, type Page } from 'playwright-core';

const TARGETS = { startupMs: 5_000, clickMs: 300, flowMs: 30_000 };
const ADDRESS = '0x1111111111111111111111111111111111111111';
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const chromiumPath =
  process.env.CHROMIUM_PATH ??
  ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'].find((p) => existsSync(p));
if (!chromiumPath) {
  console.error('first-run bench: no Chromium found (install the chromium package, or set CHROMIUM_PATH)');
  process.exit(1);
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const verdict = (ms: number, target: number) =>
  ms < target ? 'within target' : `OVER the ${target} ms target`;

/** The environment of someone who just cloned: nothing of this bot's settings. */
function bareEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (/^(SLACK_|CNGN_|PORT$|ADMIN_|METRICS_|STORE_URL$|PUBLIC_URL$|LOG_LEVEL$|REDIS_URL$)/.test(name))
      continue;
    if (/^(npm_|INIT_CWD$|NODE_ENV$)/.test(name)) continue; // npm's own, from `npm run` of this bench
    env[name] = value;
  }
  // 3000 and 9091 may be taken on a shared machine (no admin listener: nothing here reads it); the
  // README's defaults are otherwise what a person gets.
  env.PORT = process.env.BENCH_PORT ?? '0';
  env.ADMIN_PORT = '0';
  return env;
}

function timed<T>(label: string, work: () => T): { value: T; ms: number } {
  const started = performance.now();
  const value = work();
  const ms = performance.now() - started;
  console.log(`${label}: ${seconds(ms)}`);
  return { value, ms };
}

/** Resolves with the workbench URL once `npm start` prints it. */
function startBot(dir: string): { child: ChildProcess; url: Promise<string> } {
  const child = spawn('npm', ['start'], {
    cwd: dir,
    env: bareEnv(),
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let errors = '';
  const url = new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /Workbench: open (http:\/\/\S+)/.exec(out);
      if (match?.[1]) resolve(match[1]);
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      errors = `${errors}${chunk.toString()}`.slice(-4000);
    });
    child.on('exit', (code) =>
      reject(new Error(`npm start exited (${code}) before printing the workbench line:\n${errors}`)),
    );
  });
  return { child, url };
}

function stopBot(child: ChildProcess): void {
  if (child.pid && child.exitCode === null) {
    try {
      process.kill(-child.pid, 'SIGTERM'); // npm, tsx and the bot: the whole group this bench started
    } catch {
      // already gone
    }
  }
}

const clicks: Array<{ label: string; ms: number }> = [];

/** Does what a person does, then times until what they expect is on the screen. */
async function click(label: string, act: () => Promise<void>, visible: Locator): Promise<void> {
  const started = performance.now();
  await act();
  await visible.waitFor({ state: 'visible', timeout: 15_000 });
  const ms = performance.now() - started;
  clicks.push({ label, ms });
  console.log(`  ${label}: ${Math.round(ms)} ms`);
}

async function flow(page: Page): Promise<void> {
  const box = page.getByRole('textbox', { name: 'Message' });
  const actAs = page.getByRole('combobox', { name: 'Acting as' });
  await box.fill('/cngn withdraw');
  const form = page.getByRole('dialog', { name: 'Withdraw cNGN' });
  await click(
    '/cngn withdraw + Enter → the filled-in form',
    () => box.press('Enter'),
    form.getByLabel('Network'),
  );
  await form.getByLabel('Amount (₦ / cNGN)').fill('1500');
  await form.getByLabel('Network').selectOption({ label: 'Base (base)' });
  await form.getByLabel('…or type an address').fill(ADDRESS);
  await form.getByLabel('Purpose', { exact: true }).fill('Supplier payout INV-2231');
  const filed = page.getByRole('dialog', { name: 'Waiting for approval' });
  await click(
    'Ask for approval → "waiting for approval"',
    () => form.getByRole('button', { name: 'Ask for approval' }).click(),
    filed,
  );
  await click(
    'Close → the modal gone',
    () => filed.getByRole('button', { name: 'Close', exact: true }).click(),
    box,
  );
  const request = page
    .getByRole('log')
    .getByRole('article', { name: 'cngn-desk', exact: true })
    .filter({ has: page.getByRole('heading', { name: 'Withdrawal · SANDBOX' }) });
  await click(
    '#approvals → the request',
    () => page.getByRole('navigation').getByRole('button', { name: 'approvals' }).click(),
    request,
  );
  // The page marks the conversation busy from the switch until Bola's state is drawn.
  const bolaSees = page.locator('[role="log"][aria-busy="false"]');
  await click(
    'Acting as Bola → his view',
    () => actAs.selectOption('U0BOLA').then(() => undefined),
    bolaSees,
  );
  const review = page.getByRole('dialog', { name: 'Review and approve' });
  await click(
    'Approve → the review with the figures',
    () => request.getByRole('button', { name: 'Approve' }).click(),
    review.getByText(ADDRESS),
  );
  await click(
    'Approve ₦1,500.00 → "Sent" on the request',
    () => review.getByRole('button', { name: 'Approve ₦1,500.00' }).click(),
    request.getByText(/Sent, waiting for the final status|Completed/),
  );
}

async function main(): Promise<void> {
  const work = mkdtempSync(path.join(tmpdir(), 'cngn-first-run-'));
  const dir = path.join(work, 'cngn-desk');
  const commit = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: root }).toString().trim();
  console.log(`first run of ${commit.slice(0, 10)} in a fresh clone (Node ${process.version})`);
  let child: ChildProcess | undefined;
  const browser = await chromium.launch({
    executablePath: chromiumPath,
    args: process.getuid?.() === 0 ? ['--no-sandbox'] : [],
  });
  try {
    timed('git clone', () => {
      execFileSync('git', ['clone', '--quiet', '--no-checkout', root, dir], { stdio: 'inherit' });
      execFileSync('git', ['checkout', '--quiet', commit], { cwd: dir, stdio: 'inherit' });
    });
    const install = timed('npm install', () =>
      execFileSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], {
        cwd: dir,
        env: bareEnv(),
        stdio: 'inherit',
      }),
    );

    const started = performance.now();
    const bot = startBot(dir);
    child = bot.child;
    const url = await bot.url;
    const printed = performance.now() - started;
    const page = await browser.newPage({ viewport: { width: 1360, height: 860 } });
    await page.goto(url);
    await page.getByRole('log', { name: 'Messages in #treasury' }).waitFor({ timeout: 15_000 });
    await page.getByRole('textbox', { name: 'Message' }).waitFor();
    const usable = performance.now() - started;
    console.log(`npm start → "Workbench: open …" printed: ${seconds(printed)}`);
    console.log(`npm start → a usable page: ${seconds(usable)} (${verdict(usable, TARGETS.startupMs)})`);

    console.log('clicks, each to its visible result:');
    await flow(page);
    const whole = performance.now() - started;
    const slowest = Math.max(...clicks.map((c) => c.ms));
    console.log(`slowest click: ${Math.round(slowest)} ms (${verdict(slowest, TARGETS.clickMs)})`);
    console.log(
      `whole flow after install (npm start → approved): ${seconds(whole)} (${verdict(whole, TARGETS.flowMs)})`,
    );
    console.log(`fresh clone → approved, all in: ${seconds(install.ms + whole)}`);
  } finally {
    await browser.close();
    if (child) stopBot(child);
    if (process.env.BENCH_KEEP === '1') console.log(`clone kept in ${dir}`);
    else rmSync(work, { recursive: true, force: true });
  }
}

await main();
process.exit(0);
