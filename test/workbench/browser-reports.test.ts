// `/cngn report` in the workbench, in Chromium: the private "preparing" answer, then in the DM with
// the bot the chart's card showing the picture (served by the workbench, described by the alt text),
// the summary and the CSV's card, built from the sandbox's history and drawn by the bot. A report whose
// figures are unconfirmed and cut short says so on the chart's picture, its alt text and its notes.
import { describe, expect } from 'vitest';
import { renderReportChart } from '../../src/reports/chart.js';
import {
  browserAvailable,
  browserTest,
  contains,
  screenshot,
  shown,
  startBrowserBench,
  textOf,
  WorkbenchPage,
} from '../support/browser.js';
import { fixedReportSource } from '../support/report-source.js';

const STEP = 60_000;

/**
 * browserTest (its `bench`, `page` and `workbench`: the bot as `npm start` runs it) plus
 * `unconfirmedBench`, a second bot for the file whose report source says its figures are unconfirmed
 * and cut short: fixed figures, said to be read while money moved and cut short, the chart drawn by
 * the bot's renderer.
 */
const it = browserTest.extend(
  'unconfirmedBench',
  { scope: 'file' },
  async ({ chromium: _ }, { onCleanup }) => {
    const source = fixedReportSource();
    const build = source.build.bind(source);
    source.build = async (period, options) => {
      const report = await build(period, options);
      return { ...report, treasury: { ...report.treasury, snapshotUnconfirmed: true, interrupted: true } };
    };
    source.chart = renderReportChart;
    const bench = await startBrowserBench({}, { reportSource: source });
    onCleanup(() => bench.stop());
    return bench;
  },
);

describe.skipIf(!browserAvailable())('/cngn report in the workbench', () => {
  it(
    'Dayo asks for the report and finds the chart, the summary and the CSV in the DM',
    async ({ page, workbench }) => {
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
      await screenshot(card, 'report-chart-card');
      await screenshot(
        log.getByRole('article').filter({ hasText: 'Largest movements' }).last(),
        'report-summary',
      );
    },
    STEP,
  );
});

describe.skipIf(!browserAvailable())('an unconfirmed, cut-short report in the workbench', () => {
  it(
    'shows the caveat on the chart card and the notes under the summary',
    async ({ unconfirmedBench: bench }) => {
      const page = bench.page;
      const workbench = new WorkbenchPage(page);
      await workbench.actAs('Dayo');
      await workbench.say('/cngn report');
      await workbench.open('cngn-desk');
      const log = page.getByRole('log');
      const chart = log.getByRole('img', {
        name: /^cNGN treasury — last 7 days \(sandbox\) · unconfirmed, cut short\. /,
      });
      await shown(chart);
      await contains(log, 'Money moved while this report was read');
      await contains(log, 'cut short to keep within its request budget');
      // The summary's caveat is read before its figures.
      const said = await textOf(log.getByRole('article').filter({ hasText: 'Largest movements' }).last());
      expect(said).toContain('cNGN treasury — last 7 days (sandbox) · unconfirmed, cut short');
      expect(said.indexOf('Money moved while')).toBeLessThan(said.indexOf('Balance'));
      const card = page.locator('[data-file-image]').first();
      await card.scrollIntoViewIfNeeded();
      await screenshot(card, 'report-chart-card-unconfirmed');
      await screenshot(
        log.getByRole('article').filter({ hasText: 'Largest movements' }).last(),
        'report-summary-unconfirmed',
      );
    },
    STEP,
  );
});
