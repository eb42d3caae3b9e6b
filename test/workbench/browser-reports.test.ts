// `/cngn report` in the workbench, in Chromium: the private "preparing" answer, then in the DM with
// the bot the chart's card showing the picture (served by the workbench, described by the alt text),
// the summary and the CSV's card, built from the sandbox's history and drawn by the bot.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type BrowserBench,
  browserAvailable,
  contains,
  screenshot,
  shown,
  startBrowserBench,
  WorkbenchPage,
} from './browser-support.js';

const STEP = 60_000;

describe.skipIf(!browserAvailable())('/cngn report in the workbench', () => {
  let bench: BrowserBench;
  let page: Page;
  beforeAll(async () => {
    bench = await startBrowserBench({});
    page = bench.page;
  }, STEP);
  afterAll(() => bench?.stop());

  it(
    'Dayo asks for the report and finds the chart, the summary and the CSV in the DM',
    async () => {
      const workbench = new WorkbenchPage(page);
      await workbench.actAs('Dayo');
      await workbench.say('/cngn report');
      await contains(page.getByRole('log'), 'Preparing your report for last 7 days');
      await workbench.open('cngn-desk');
      const log = page.getByRole('log');
      const chart = log.getByRole('img', { name: /^cNGN treasury — last 7 days \(sandbox\), .*inflows ₦/ });
      await shown(chart);
      // The picture loaded: the page's policy let it in and the workbench served a real PNG.
      await expect
        .poll(() => chart.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth), {
          timeout: 15_000,
        })
        .toBe(1800);
      await contains(log, 'cNGN treasury — last 7 days (sandbox)');
      await contains(log, 'Largest movements');
      await contains(log, 'cngn-report-sandbox-');
      await contains(log, '.csv');
      await screenshot(page, 'report-dm');
      const card = page.locator('[data-file-image]').first();
      await card.scrollIntoViewIfNeeded();
      await card.screenshot({
        path: `${await screenshot(page, 'report-dm')}`.replace('report-dm', 'report-chart-card'),
      });
      const summary = log.getByRole('article').filter({ hasText: 'Largest movements' }).last();
      await summary.screenshot({
        path: `${await screenshot(page, 'report-dm')}`.replace('report-dm', 'report-summary'),
      });
    },
    STEP,
  );
});
