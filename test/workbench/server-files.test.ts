// Files the bot uploads (files.uploadV2: getUploadURLExternal → POST of the bytes → completeUploadExternal)
// land in the workbench as a message with the files, downloadable from the workbench on loopback only.
import { WebClient } from '@slack/web-api';
import { request } from 'undici';
import { describe, expect } from 'vitest';
import { CHART_PNG } from '../support/report-source.js';
import {
  type Bench,
  BOLA,
  messagesIn,
  TREASURY,
  benchTest as test,
  wording,
} from '../support/workbench-bench.js';

const dmOf = (user: string) => `D${user}`;

/** A Slack Web API client with the bot's token, on the workbench's stand-in for Slack. */
function botClient(bench: Bench): WebClient {
  const { workbench, config } = bench.started;
  if (!workbench || !config.slack.botToken) throw new Error('the workbench runs with its own token');
  return new WebClient(config.slack.botToken, { slackApiUrl: workbench.apiUrl });
}

describe('/cngn audit export in the workbench', () => {
  test("ends with the CSV and JSON Lines files in Bola's DM, downloadable", async ({ bench }) => {
    const engine = bench.started.bot.approvals?.engine;
    if (!engine) throw new Error('the workbench runs with approvals');
    await engine.recordAudit({
      at: new Date().toISOString(),
      kind: 'audit',
      action: 'exported',
      actor: BOLA,
      subject: 'a range exported earlier',
    });
    const { answer } = await bench.post('/command', {
      user: BOLA,
      channel: TREASURY,
      text: '/cngn audit export 7d',
    });
    expect(answer.ok).toBe(true);
    const shared = await bench.waitFor(
      BOLA,
      (s) => messagesIn(s, dmOf(BOLA)).find((m) => m.files?.length),
      'the export in the DM',
    );
    expect(shared.bot).toBe(true);
    expect(shared.text).toMatch(/Audit log export, \d+ entries/);
    const names = (shared.files ?? []).map((f) => f.name);
    expect(names).toHaveLength(2);
    expect(names[0]).toMatch(/^cngn-audit-sandbox-.*\.csv$/);
    expect(names[1]).toMatch(/^cngn-audit-sandbox-.*\.jsonl$/);
    for (const file of shared.files ?? []) {
      const response = await request(file.url);
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-disposition']).toContain(encodeURIComponent(file.name));
      const body = await response.body.text();
      expect(Buffer.byteLength(body)).toBe(file.size);
      expect(body).toContain('a range exported earlier');
    }
    // Nothing says the upload failed.
    const treasury = messagesIn(await bench.state(BOLA), TREASURY);
    expect(treasury.some((m) => /refused the upload/.test(wording(m)))).toBe(false);
  });

  test('serves a file only to a loopback Host', async ({ bench }) => {
    await botClient(bench).files.uploadV2({
      channel_id: TREASURY,
      file: Buffer.from('a,b\r\n'),
      filename: 'loopback-only.csv',
      title: 'Loopback only',
    });
    const file = await bench.waitFor(
      BOLA,
      (s) =>
        messagesIn(s, TREASURY)
          .flatMap((m) => m.files ?? [])
          .find((f) => f.name === 'loopback-only.csv'),
      'the file in #treasury',
    );
    const loopback = await request(file.url);
    expect(loopback.statusCode).toBe(200);
    await loopback.body.dump();
    const foreign = await request(file.url, { headers: { host: 'attacker.example' } });
    expect(foreign.statusCode).toBe(403);
    await foreign.body.dump();
    const unknown = await request(file.url.replace(file.id, 'FNOSUCHFILE'));
    expect(unknown.statusCode).toBe(404);
    await unknown.body.dump();
  });
});

describe('pictures in the workbench', () => {
  test('shows a PNG the bot shares with its alt text, served as an image by the page; nothing else as one', async ({
    bench,
  }) => {
    const { url } = bench.started;
    await botClient(bench).files.uploadV2({
      channel_id: TREASURY,
      file_uploads: [
        { file: CHART_PNG, filename: 'chart.png', title: 'The chart', alt_text: 'Bars rising' },
        { file: Buffer.from('a,b\r\n'), filename: 'not-a-picture.png', title: 'No picture' },
      ],
    });
    const shared = await bench.waitFor(
      BOLA,
      (s) => messagesIn(s, TREASURY).find((m) => m.files?.some((f) => f.name === 'chart.png')),
      'the picture in #treasury',
    );
    const [chart, fake] = shared.files ?? [];
    expect(chart).toMatchObject({ title: 'The chart', alt: 'Bars rising' });
    expect(chart?.preview).toMatch(/^\/workbench\/api\/files\/F\w+\/preview$/);
    const picture = await request(`${url}${chart?.preview}`);
    expect(picture.statusCode).toBe(200);
    expect(picture.headers['content-type']).toBe('image/png');
    expect(Buffer.from(await picture.body.arrayBuffer()).equals(CHART_PNG)).toBe(true);
    // Named .png but no PNG: no picture is served for it.
    const refused = await request(`${url}${fake?.preview}`);
    expect(refused.statusCode).toBe(404);
    await refused.body.dump();
  });
});
