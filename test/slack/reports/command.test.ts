// `/cngn report` through the real bot: a signed slash command, the private "preparing" answer, then the
// DM the fake Slack receives: the chart uploaded with its title and alt text, the summary's blocks,
// and the CSV. Reports come from a small fixed source (test/support/report-source.ts).
import { describe, expect } from 'vitest';
import { toCsv } from '../../../src/format/csv.js';
import type { Movement } from '../../../src/reports/types.js';
import type { SlackCall } from '../../support/fake-slack.js';
import type { Harness } from '../../support/harness.js';
import { harnessTest } from '../../support/harness-fixtures.js';
import { CHART_ALT, CHART_PNG, fixedReportSource } from '../../support/report-source.js';
import { commandAnswer, slashCommand } from '../../support/slack-requests.js';

const READER = 'UREADER';
const NOW = new Date('2026-11-26T10:00:00Z');

/**
 * `source`, the test's fixed report source; `start(withSource)`, the test's bot at NOW, with that
 * source (or, given false, the one that reads the service, as npm start has), stopped after the test.
 */
const test = harnessTest
  .extend('source', async () => fixedReportSource())
  .extend(
    'start',
    async ({ source, startHarness }) =>
      (withSource = true): Promise<Harness> =>
        startHarness({ now: () => NOW, ...(withSource ? { reportSource: source } : {}) }),
  );

/** `/cngn <text>` as the reader; the private answer's JSON. */
async function cngn(h: Harness, text: string): Promise<string> {
  return JSON.stringify((await commandAnswer(h, text, READER)).body);
}

describe('/cngn report', () => {
  test('answers privately at once, then sends the chart, the summary and the CSV to the DM', async ({
    start,
    source,
  }) => {
    const h = await start();
    expect(await cngn(h, 'report')).toContain(
      "Preparing your report for *last 7 days*… it will arrive in your DM, usually within half a minute; longer, up to several minutes, when the service's request budget is busy.",
    );
    const summary = await h.slack.waitFor('chat.postMessage', (c) => c.body.channel === `D${READER}`);
    await expect.poll(() => h.slack.sharedFiles().length).toBe(2);
    const [chart, csv] = h.slack.sharedFiles();
    // Chart first, then the summary, then the CSV.
    const order = h.slack.calls
      .filter((c) => c.method === 'files.completeUploadExternal' || c === summary)
      .map((c) => c.method);
    expect(order).toEqual([
      'files.completeUploadExternal',
      'chat.postMessage',
      'files.completeUploadExternal',
    ]);

    expect(source.periods.map((p) => p.label)).toEqual(['last 7 days']);
    expect(source.charts[0]).toMatchObject({
      title: 'cNGN treasury — last 7 days (sandbox)',
      environment: 'sandbox',
    });
    expect(chart).toMatchObject({
      channel: `D${READER}`,
      filename: 'cngn-report-sandbox-2026-11-20-to-2026-11-26.png',
      title: 'cNGN treasury — last 7 days (sandbox): ₦1,200,000.00 → ₦1,450,000.50',
      altText: CHART_ALT,
    });
    expect(chart?.content?.equals(CHART_PNG)).toBe(true);

    const blocks = JSON.stringify(summary.body.blocks);
    expect(blocks).toContain('cNGN treasury — last 7 days (sandbox)');
    expect(blocks).toContain('₦1,200,000.00 → ₦1,450,000.50');
    expect(blocks).toContain('Deposits ₦500,000.50');
    expect(blocks).toContain('Withdrawals ₦250,000.00');
    expect(blocks).toContain('*Fees*  ₦1,250.00');
    expect(blocks).toContain('`DEP-0001`');
    expect(blocks).toContain('median 12 min, slowest 2 h 5 min');
    expect(blocks).toContain('<@UAPPROVERA> 2, <@UAPPROVERB> 1');
    expect(blocks).toContain('Figures complete from');
    // The service's words are escaped: no channel ping, no bold.
    expect(blocks).not.toContain('<!channel>');
    expect(blocks).toContain('RD-&lt;!channel&gt;');

    expect(csv).toMatchObject({
      channel: `D${READER}`,
      title: '2 transactions — last 7 days (CSV)',
      filename: 'cngn-report-sandbox-2026-11-20-to-2026-11-26.csv',
    });
    const rows = csv?.content?.toString('utf8').split('\r\n') ?? [];
    expect(rows[0]).toBe('at,reference,kind,direction,amount,fee,status,reason,network,note');
    expect(rows).toContain(
      '2026-11-25T08:00:00.000Z,"\'=HYPERLINK(""x"")",other,in,100000.00,500.00,succeeded,,base,',
    );
  });

  test('says on the chart and its file title that figures read while money moved, or cut short, are not confirmed', async ({
    start,
    source,
  }) => {
    const h = await start();
    const build = source.build.bind(source);
    source.build = async (period, options) => {
      const report = await build(period, options);
      return { ...report, treasury: { ...report.treasury, snapshotUnconfirmed: true, interrupted: true } };
    };
    await cngn(h, 'report');
    const summary = await h.slack.waitFor('chat.postMessage', (c) => c.body.channel === `D${READER}`);
    await expect.poll(() => h.slack.sharedFiles().length).toBe(2);
    expect(source.charts[0]).toMatchObject({ unconfirmed: true, cutShort: true });
    expect(h.slack.sharedFiles()[0]?.title).toBe(
      'cNGN treasury — last 7 days (sandbox) · unconfirmed, cut short: ₦1,200,000.00 → ₦1,450,000.50',
    );
    // The summary says it in its header and notification, and its notes come before any figure.
    expect(String(summary.body.text)).toMatch(
      /^cNGN treasury — last 7 days \(sandbox\) · unconfirmed, cut short: ₦/,
    );
    const blocks = JSON.stringify(summary.body.blocks);
    expect(blocks).toContain('"text":"cNGN treasury — last 7 days (sandbox) · unconfirmed, cut short"');
    expect(blocks.indexOf('Money moved while this report was read')).toBeLessThan(
      blocks.indexOf('*Balance*'),
    );
    expect(blocks.indexOf('cut short to keep within its request budget')).toBeLessThan(
      blocks.indexOf('*Balance*'),
    );
  });

  test('sends a CSV of 1,201 transactions, made a slice at a time, with the bytes of one made whole', async ({
    start,
    source,
  }) => {
    const h = await start();
    const movements: Movement[] = Array.from({ length: 1201 }, (_, i) => ({
      reference: i % 100 === 0 ? `=REF-${i}` : `WD-${i}`,
      kind: 'withdrawal',
      direction: 'out',
      amount: `${i}.00`,
      fee: '0.00',
      at: new Date(Date.parse('2026-11-20T00:00:00Z') + i * 60_000).toISOString(),
      status: i % 7 === 0 ? 'failed' : 'succeeded',
      ...(i % 7 === 0 ? { reason: 'Declined, "by bank"' } : {}),
      ...(i % 3 === 0 ? { network: 'bsc' } : {}),
      ...(i === 5 ? { unreadableAmount: '1.005' } : {}),
    }));
    const build = source.build.bind(source);
    source.build = async (period, options) => {
      const report = await build(period, options);
      return { ...report, treasury: { ...report.treasury, movements } };
    };
    await cngn(h, 'report');
    await expect.poll(() => h.slack.sharedFiles().length).toBe(2);
    const csv = h.slack.sharedFiles()[1];
    const note = 'amount could not be read (the service sent "1.005"); left out of the report\'s figures';
    const whole = toCsv([
      ['at', 'reference', 'kind', 'direction', 'amount', 'fee', 'status', 'reason', 'network', 'note'],
      ...movements.map((m) => [
        m.at,
        m.reference,
        m.kind,
        m.direction,
        m.unreadableAmount === undefined ? m.amount : '',
        m.fee,
        m.status,
        m.reason,
        m.network,
        m.unreadableAmount === undefined ? '' : note,
      ]),
    ]);
    expect(csv?.title).toBe('1201 transactions — last 7 days (CSV)');
    expect(csv?.content?.toString('utf8')).toBe(whole);
  });

  test('names the transactions whose amounts could not be read, in the summary and the CSV', async ({
    start,
    source,
  }) => {
    const h = await start();
    const odd = {
      reference: 'WD-*odd*',
      kind: 'withdrawal',
      direction: 'out',
      amount: '0.00',
      fee: '0.00',
      at: '2026-11-25T09:00:00.000Z',
      status: 'succeeded',
      unreadableAmount: '=100.505',
    } as const;
    const build = source.build.bind(source);
    source.build = async (period, options) => {
      const report = await build(period, options);
      const movements = [...report.treasury.movements, odd];
      return { ...report, treasury: { ...report.treasury, movements, unreadable: [odd] } };
    };
    await cngn(h, 'report');
    const summary = await h.slack.waitFor('chat.postMessage', (c) => c.body.channel === `D${READER}`);
    await expect.poll(() => h.slack.sharedFiles().length).toBe(2);
    const blocks = JSON.stringify(summary.body.blocks);
    expect(blocks).toContain(
      ':warning: 1 transaction with amounts that could not be read: `WD-＊odd＊` (\\"=100.505\\")',
    );
    expect(blocks.indexOf('could not be read')).toBeLessThan(blocks.indexOf('*Balance*'));
    // The header and the chart's file title say it too: a chart forwarded on its own is not taken whole.
    expect(blocks).toMatch(
      /^\[\{"type":"header","text":\{"type":"plain_text","text":"[^"]*· 1 amount not counted"/,
    );
    expect(h.slack.sharedFiles()[0]?.title).toContain('· 1 amount not counted:');
    const rows = h.slack.sharedFiles()[1]?.content?.toString('utf8').split('\r\n') ?? [];
    expect(rows).toContain(
      '2026-11-25T09:00:00.000Z,WD-*odd*,withdrawal,out,,0.00,succeeded,,,"amount could not be read (the service sent ""=100.505""); left out of the report\'s figures"',
    );
  });

  test('takes a month, and refuses one that has not begun without sending anything', async ({
    start,
    source,
  }) => {
    const h = await start();
    expect(await cngn(h, 'report 2026-10')).toContain('Preparing your report for *October 2026*');
    await expect.poll(() => h.slack.sharedFiles().length).toBe(2);
    expect(await cngn(h, 'report 2027-01')).toContain('January 2027 has not begun yet.');
    expect(await cngn(h, 'report fortnight')).toContain('report takes today, yesterday, 7d, 30d or a month');
    expect(source.periods.map((p) => p.label)).toEqual(['October 2026']);
  });

  test('tells the person in their DM, in one sentence, when the report could not be made', async ({
    start,
    source,
  }) => {
    const h = await start();
    source.failWith = new Error('figures unavailable at /srv/secret/path');
    await cngn(h, 'report yesterday');
    const told = await h.slack.waitFor('chat.postMessage', (c) => c.body.channel === `D${READER}`);
    expect(String(told.body.text)).toMatch(
      /^Your report for yesterday could not be made; try again shortly, quoting reference `[0-9a-f]{8}`/,
    );
    expect(JSON.stringify(told.body)).not.toContain('/srv/secret');
    expect(h.slack.sharedFiles()).toHaveLength(0);
  });

  test('gives the build a cut, and stopping the bot fires it and tells the DM', async ({ start, source }) => {
    const h = await start();
    let given: AbortSignal | undefined;
    let building!: () => void;
    const started = new Promise<void>((resolve) => {
      building = resolve;
    });
    // A build that never ends by itself: it waits for budget until its signal fires.
    source.build = (_period, options) => {
      given = options?.signal;
      building();
      return new Promise((_, reject) => {
        given?.addEventListener('abort', () => reject(given?.reason), { once: true });
      });
    };
    await cngn(h, 'report 30d');
    await started;
    expect(given?.aborted).toBe(false);
    const stopped = h.stop();
    const told = await h.slack.waitFor('chat.postMessage', (c) => c.body.channel === `D${READER}`);
    await stopped;
    expect(given?.aborted).toBe(true);
    expect(String(told.body.text)).toMatch(/^Your report for last 30 days could not be made/);
    expect(h.slack.sharedFiles()).toHaveLength(0);
  });

  test('posts a part once when Slack took it but its answer was lost, and says the report did not come', async ({
    start,
  }) => {
    const h = await start();
    const dm = `D${READER}`;
    const isSummary = (c: SlackCall) =>
      c.body.channel === dm && JSON.stringify(c.body.blocks ?? null).includes('Deposits ₦500,000.50');
    h.slack.loseAnswer('chat.postMessage', isSummary);
    await cngn(h, 'report');
    const told = await h.slack.waitFor(
      'chat.postMessage',
      (c) => c.body.channel === dm && String(c.body.text).startsWith('Your report for last 7 days could not'),
      15_000,
    );
    expect(told).toBeDefined();
    // Not posted again behind the bot's back: the summary once, and the CSV after it never sent.
    expect(h.slack.callsTo('chat.postMessage').filter(isSummary)).toHaveLength(1);
    expect(h.slack.sharedFiles().map((f) => f.filename)).toEqual([
      'cngn-report-sandbox-2026-11-20-to-2026-11-26.png',
    ]);
  });

  test('says so in the private answer when Slack opens no DM', async ({ start, source }) => {
    const h = await start();
    h.slack.on('conversations.open', () => ({ body: { ok: false, error: 'missing_scope' } }));
    const name = 'no-dm';
    await slashCommand(h.sender, { text: 'report', userId: READER, responseUrl: h.slack.responseUrl(name) });
    const told = await h.slack.waitFor(`response_url:${name}`, (c) =>
      JSON.stringify(c.body).includes('could not be sent'),
    );
    expect(JSON.stringify(told.body)).toContain('Slack did not open a direct message with you');
    expect(source.periods).toHaveLength(0);
  });

  test('builds the report from the service and draws the chart when no source is given (as npm start does)', async ({
    start,
  }) => {
    const h = await start(false);
    expect(await cngn(h, 'report 30d')).toContain('Preparing your report for *last 30 days*');
    await expect.poll(() => h.slack.sharedFiles().length, { timeout: 30_000 }).toBe(2);
    const [chart, csv] = h.slack.sharedFiles();
    expect(chart?.title).toMatch(/^cNGN treasury — last 30 days \(sandbox\): ₦[\d,.]+ → ₦[\d,.]+$/);
    // A real PNG of twice the chart's size (900×520 at 2×).
    expect(chart?.content?.subarray(1, 4).toString()).toBe('PNG');
    expect(chart?.content?.readUInt32BE(16)).toBe(1800);
    expect(csv?.filename).toMatch(/\.csv$/);
    expect(csv?.content?.toString()).toMatch(/CNGN-(DP|WD|RD|BR)-/);
  });
});
