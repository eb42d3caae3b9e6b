// Browser tests' shared parts: find Debian's Chromium (skip with one notice when there is none,
// fail under CI=true), launch it, save screenshots where a person can look at them (when asked), and the fixture
// of a file's steps: the real bot and one Chromium page on it, with the steps people take there.
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Browser, chromium, type Locator, type Page } from 'playwright-core';
import { test as base, expect } from 'vitest';
import { type Started, type StartOptions, start } from '../../src/wiring/startup.js';
import { USERS } from '../../src/workbench/people.js';
import { inMemoryDir } from './fixtures.js';

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];

const SCREENSHOTS = path.resolve('test-results', 'screenshots');

/** The Chromium to drive: CHROMIUM_PATH, else the first of the usual Debian paths that exists. */
function chromiumPath(): string | undefined {
  const wanted = process.env.CHROMIUM_PATH;
  if (wanted) return existsSync(wanted) ? wanted : undefined;
  return CANDIDATES.find((candidate) => existsSync(candidate));
}

/**
 * Each test file runs in its own worker, so "once" is kept in a marker file named after the test
 * runner's process: the first file to find no browser says so, the others stay quiet.
 */
function firstToNotice(): boolean {
  try {
    writeFileSync(path.join(tmpdir(), `cngn-desk-no-chromium-${process.ppid}`), '', { flag: 'wx' });
    return true;
  } catch {
    return false;
  }
}

/** True when the browser tests can run; prints the skip notice once; under CI=true a missing browser throws. */
export function browserAvailable(): boolean {
  if (chromiumPath()) return true;
  if (process.env.CI === 'true') {
    throw new Error(
      'CI=true but no Chromium was found (looked at CHROMIUM_PATH and /usr/bin/chromium): install the chromium package',
    );
  }
  if (firstToNotice()) {
    process.stderr.write(
      'notice: browser tests skipped: no Chromium found (install the chromium package, or set CHROMIUM_PATH)\n',
    );
  }
  return false;
}

async function launchBrowser(): Promise<Browser> {
  const executablePath = chromiumPath();
  if (!executablePath) throw new Error('no Chromium');
  const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  return chromium.launch({ executablePath, args: asRoot ? ['--no-sandbox'] : [] });
}

let workerChromium: Promise<Browser> | undefined;

/**
 * The worker's one Chromium: a worker runs its files one after another in one module graph (isolate:
 * false), so they share it, each in contexts of its own that `closeContexts` ends. Started by the
 * worker's first browser test (a second or so), ended with the worker.
 */
export async function workerBrowser(): Promise<Browser> {
  const running = await workerChromium?.catch(() => undefined);
  if (running?.isConnected()) return running;
  workerChromium = launchBrowser();
  return workerChromium;
}

/** Closes what a file opened in the worker's Chromium (its pages, with their contexts). */
export async function closeContexts(browser: Browser): Promise<void> {
  await Promise.all(browser.contexts().map((context) => context.close().catch(() => undefined)));
}

export async function newPage(browser: Browser): Promise<Page> {
  const context = await browser.newContext({
    viewport: { width: 1360, height: 860 },
    timezoneId: 'Africa/Lagos',
  });
  return context.newPage();
}

/**
 * A picture of the page, or of one part of it, in test-results/screenshots/ for a person to look at,
 * taken when BROWSER_SCREENSHOTS=1: no test reads them, and each costs Chromium a few hundred ms.
 */
export async function screenshot(target: Page | Locator, name: string): Promise<void> {
  if (process.env.BROWSER_SCREENSHOTS !== '1') return;
  mkdirSync(SCREENSHOTS, { recursive: true });
  await target.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`) });
}

/** Waits for what the page shows (browser work is asynchronous); gives up after 15 s. */
export function eventually<T>(read: () => T | Promise<T>) {
  return expect.poll(read, { timeout: 15_000, interval: 50 });
}

export async function shown(locator: Locator): Promise<void> {
  await locator.waitFor({ state: 'visible', timeout: 15_000 });
}

export async function hidden(locator: Locator): Promise<void> {
  await locator.waitFor({ state: 'hidden', timeout: 15_000 });
}

/** The text of everything the locator matches, joined; empty while nothing matches. */
export async function textOf(locator: Locator): Promise<string> {
  return (await locator.allTextContents()).join('\n');
}

export async function contains(locator: Locator, part: string): Promise<void> {
  await eventually(() => textOf(locator)).toContain(part);
}

/**
 * The README's picture of the workbench, written only when WORKBENCH_DOCS_SCREENSHOT=1 so an ordinary
 * test run leaves the committed file alone: `WORKBENCH_DOCS_SCREENSHOT=1 npx vitest run test/workbench/browser-flows.test.ts`.
 */
export async function docsScreenshot(page: Page): Promise<void> {
  if (process.env.WORKBENCH_DOCS_SCREENSHOT !== '1') return;
  const size = page.viewportSize();
  await page.setViewportSize({ width: 1200, height: 640 });
  mkdirSync(path.resolve('docs'), { recursive: true });
  await page.screenshot({ path: path.resolve('docs', 'workbench.png') });
  if (size) await page.setViewportSize(size);
}

/** The real bot started as `npm start` starts it with no Slack settings, and a page open on it. */
export interface BrowserBench {
  started: Started;
  browser: Browser;
  page: Page;
  /** Lines start-up printed (the `Workbench: open …` line). */
  printed: string[];
  stop(): Promise<void>;
}

/**
 * PORT 0, a temporary SQLite store (removed by stop()), `env` on top; the page shows #treasury. The
 * store is in memory where the system has one: these tests are about what the page shows, and on a
 * disk every commit's sync waits on a disk the machine's other work shares.
 */
export async function startBrowserBench(
  env: Record<string, string> = {},
  options: Pick<StartOptions, 'reportSource' | 'timings'> = {},
): Promise<BrowserBench> {
  const dir = inMemoryDir();
  const printed: string[] = [];
  let started: Started | undefined;
  let browser: Browser | undefined;
  const stop = async () => {
    if (browser) await closeContexts(browser);
    await started?.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    started = await start(
      {
        PORT: '0',
        ADMIN_PORT: '0',
        STORE_URL: `sqlite://${path.join(dir, 'workbench.sqlite')}`,
        LOG_LEVEL: 'silent',
        ...env,
      },
      { print: (line) => printed.push(line), ...options },
    );
    browser = await workerBrowser();
    const page = await newPage(browser);
    await page.goto(started.url);
    await shown(page.getByRole('log', { name: 'Messages in #treasury' }));
    return { started, browser, page, printed, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Switches "Acting as" to the named demo user and waits until that person's state is drawn. */
export async function actAs(page: Page, name: string): Promise<void> {
  const id = USERS.find((u) => u.name === name)?.id ?? name;
  await page.getByRole('combobox', { name: 'Acting as' }).selectOption(id);
  await shown(page.locator('[role="log"][aria-busy="false"]'));
}

/** Opens a channel, DM or App Home from the sidebar by its name. */
async function openInSidebar(page: Page, name: string): Promise<void> {
  await page.getByRole('navigation').getByRole('button', { name }).click();
}

/**
 * Approve as a person does in the workbench: click Approve, see the review modal with the figures,
 * press its "Approve ₦…". Returns the review's text as it was shown, for the caller to check.
 */
export async function approveInReview(page: Page, approveButton: Locator): Promise<string> {
  await approveButton.click();
  const review = page.getByRole('dialog', { name: 'Review and approve' });
  await shown(review);
  const text = await textOf(review);
  await review.getByRole('button', { name: /^Approve / }).click();
  await hidden(review);
  return text;
}

/** The steps a person takes on the workbench page, by accessible names. */
export class WorkbenchPage {
  constructor(readonly page: Page) {}

  actAs(name: string): Promise<void> {
    return actAs(this.page, name);
  }

  open(name: string): Promise<void> {
    return openInSidebar(this.page, name);
  }

  /** Types into the message box of what is open and sends it. */
  async say(text: string): Promise<void> {
    const box = this.page.getByRole('textbox', { name: 'Message' });
    await box.fill(text);
    await box.press('Enter');
  }

  /** After filing, the modal says the request waits for approval; close it as a person would. */
  async closeFiledNotice(): Promise<void> {
    const notice = this.page.getByRole('dialog', { name: 'Waiting for approval' });
    await contains(notice, 'from someone other than you');
    await notice.getByRole('button', { name: 'Close', exact: true }).click();
    await eventually(() => this.page.getByRole('dialog').count()).toBe(0);
  }

  /** `/cngn withdraw` where the page is, the modal filled in (on Base) and sent, its notice closed. */
  async fileWithdrawal(amount: string, address: string): Promise<void> {
    await this.say('/cngn withdraw');
    const dialog = this.page.getByRole('dialog', { name: 'Withdraw cNGN' });
    await dialog.getByLabel('Amount (₦ / cNGN)').fill(amount);
    await dialog.getByLabel('Network').selectOption({ label: 'Base (base)' });
    await dialog.getByLabel('…or type an address').fill(address);
    await dialog.getByLabel('Purpose', { exact: true }).fill('Supplier payout INV-2231');
    await dialog.getByRole('button', { name: 'Ask for approval' }).click();
    await this.closeFiledNotice();
  }
}

/**
 * A browser test file's fixtures, one of each for the whole file (its tests are steps of one story):
 * `bench` (startBrowserBench with `benchEnv` and `benchTimings`, which a file sets by
 * `browserTest.extend('benchEnv', …)` or `.extend('benchTimings', …)`), its `page`, and
 * `workbench`, the steps on that page.
 */
export const browserTest = base
  // One Chromium per worker, shared by its files (workerBrowser); ended with the worker.
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads what a fixture needs from this pattern.
  .extend('chromium', { scope: 'worker' }, async ({}, { onCleanup }) => {
    const browser = await workerBrowser();
    onCleanup(() => browser.close());
    return browser;
  })
  .extend('benchEnv', { scope: 'file' }, {} as Record<string, string>)
  .extend('benchTimings', { scope: 'file' }, {} as NonNullable<StartOptions['timings']>)
  .extend('bench', { scope: 'file' }, async ({ benchEnv, benchTimings, chromium: _ }, { onCleanup }) => {
    const bench = await startBrowserBench(benchEnv, { timings: benchTimings });
    onCleanup(() => bench.stop());
    return bench;
  })
  .extend('page', { scope: 'file' }, async ({ bench }) => bench.page)
  .extend('workbench', { scope: 'file' }, async ({ page }) => new WorkbenchPage(page));
