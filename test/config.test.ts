import { spawnSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig, parseDuration, secretsOf } from '../src/config.js';
import { capturedLog } from './support/captured-log.js';
import { problemsOf, SLACK_ENV } from './support/config-env.js';

const slack = SLACK_ENV;
const keyFile = new URL('./fixtures/test_ed25519', import.meta.url).pathname;

describe('configuration', () => {
  it('runs the embedded sandbox on SQLite with only the Slack token and signing secret', () => {
    const config = loadConfig({ SLACK_BOT_TOKEN: 'xoxb-1-2-abc', SLACK_SIGNING_SECRET: 'shh' });
    expect(config.service).toEqual({ mode: 'sandbox' });
    expect(config.storeUrl).toBe('sqlite://./data/cngn-desk.sqlite');
    expect(config.port).toBe(3000);
    expect(config.rateLimit).toEqual({ limit: 20, windowSeconds: 60 });
    expect(config.approvalTtlMs).toBe(24 * 3_600_000);
    expect(config.slack.mode).toBe('http');
    // Approvals are off until a channel and approvers are named; read commands work without them.
    expect(config.approvalsChannel).toBeUndefined();
  });

  it('refuses to start with nothing set, naming both Slack variables in one list', () => {
    const problems = problemsOf({}).join('\n');
    expect(problems).toMatch(/SLACK_BOT_TOKEN: required/);
    expect(problems).toMatch(/SLACK_SIGNING_SECRET: required in HTTP mode/);
  });

  it('npm start logs each problem as one JSON line, not a stack, and exits 1', () => {
    const root = new URL('..', import.meta.url).pathname;
    // What npm start runs: the compiled bundle (built first if a source changed).
    const run = spawnSync(process.execPath, ['scripts/start.mjs'], {
      cwd: root,
      // A Slack setting without the token is a half set-up (with none at all, the workbench starts).
      env: {
        PATH: process.env.PATH ?? '',
        PORT: 'eighty',
        SLACK_APP_TOKEN: 'token-without-prefix',
        ADMIN_PORT: '70000',
        METRICS_PORT: '0',
      },
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(run.status).toBe(1);
    // Every line JSON (the build's too, when it ran); one error line per problem, naming its variable.
    const entries = run.stderr
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const errors = entries.filter((entry) => entry.level === 'error');
    for (const name of ['SLACK_BOT_TOKEN:', 'SLACK_APP_TOKEN:', 'PORT:', 'ADMIN_PORT:', 'METRICS_PORT:']) {
      expect(errors).toContainEqual(
        expect.objectContaining({
          message: expect.stringMatching(new RegExp(`^${name}`)),
          hint: 'See docs/configuration.md',
        }),
      );
    }
    expect(run.stderr).not.toMatch(/^\s+at /m);
  }, 120_000);

  it('reads a full HTTP-mode configuration against the real service', () => {
    const config = loadConfig({
      ...slack,
      CNGN_API_KEY: 'cngn_live_abc',
      CNGN_ENCRYPTION_KEY: 'enc',
      CNGN_PRIVATE_KEY_FILE: keyFile,
      CNGN_APPROVAL_TIERS: '0:1,1000000:2',
      CNGN_APPROVAL_TTL: '30m',
      CNGN_RATE_LIMIT: '10/60s',
      PUBLIC_URL: 'https://desk.example.com/',
      PORT: '8080',
      LOG_LEVEL: 'DEBUG',
    });
    expect(config.slack.mode).toBe('http');
    expect(config.approvers).toEqual(['U0AAA', 'U0BBB']);
    expect(config.approvalTtlMs).toBe(30 * 60_000);
    expect(config.rateLimit).toEqual({ limit: 10, windowSeconds: 60 });
    expect(config.publicUrl).toBe('https://desk.example.com');
    expect(config.logLevel).toBe('debug');
    expect(config.service).toMatchObject({
      mode: 'service',
      baseUrl: 'https://api.cngn.co',
      apiKey: 'cngn_live_abc',
    });
    if (config.service.mode === 'service')
      expect(config.service.privateKey).toBe(readFileSync(keyFile, 'utf8').trim());
    expect(secretsOf(config)).toEqual(
      expect.arrayContaining(['xoxb-1-2-abc', 'shh', 'cngn_live_abc', 'enc']),
    );
  });

  it('gives the logger the private key to redact, whole and in pieces, from a file or a one-line variable', () => {
    const keyText = readFileSync(keyFile, 'utf8');
    const bodyLine = keyText.split('\n')[1] ?? '';
    expect(bodyLine.length).toBeGreaterThan(16);
    const fromFile = loadConfig({
      ...slack,
      CNGN_API_KEY: 'cngn_test_abc',
      CNGN_ENCRYPTION_KEY: 'enc',
      CNGN_PRIVATE_KEY_FILE: keyFile,
    });
    const oneLine = keyText.trim().replace(/\n/g, '\\n');
    const fromVariable = loadConfig({
      ...slack,
      CNGN_API_KEY: 'cngn_test_abc',
      CNGN_ENCRYPTION_KEY: 'enc',
      CNGN_PRIVATE_KEY: oneLine,
    });
    for (const config of [fromFile, fromVariable]) {
      const { logger: log, lines } = capturedLog('info', { secrets: secretsOf(config) });
      log.error('could not parse key', { detail: `near ${bodyLine}`, raw: oneLine, note: keyText });
      const out = lines.join('\n');
      expect(out).not.toContain(bodyLine);
      expect(out).not.toContain(bodyLine.slice(0, 40));
      expect(out).toContain('[redacted]');
    }
  });

  it('takes a PostgreSQL store URL, and gives the logger its password to redact', () => {
    for (const scheme of ['postgres', 'postgresql']) {
      const config = loadConfig({ ...slack, STORE_URL: `${scheme}://desk:s%40cret@db.internal:5432/desk` });
      expect(config.storeUrl).toBe(`${scheme}://desk:s%40cret@db.internal:5432/desk`);
      const { logger: log, lines } = capturedLog('info', { secrets: secretsOf(config) });
      log.error('store failed', { detail: 'password s@cret was refused', url: config.storeUrl });
      expect(lines.join('\n')).not.toMatch(/s@cret|s%40cret/);
    }
  });

  it('gives the logger the password of a STORE_URL that does not parse, or whose % does not decode', () => {
    const cases = [
      ['redis://desk:s3cretpass@localhost:99999', 's3cretpass'],
      ['redis://desk:pass%zzword@db.internal:6379', 'pass%zzword'],
      ['redis://desk:pass%zzword@db.internal:99999', 'pass%zzword'],
    ];
    for (const [url, password] of cases) {
      const config = loadConfig({ ...slack, STORE_URL: url });
      expect(secretsOf(config)).toContain(password);
      const { logger: log, lines } = capturedLog('info', { secrets: secretsOf(config) });
      log.error('store failed', { detail: `AUTH ${password} refused` });
      expect(lines.join('\n')).not.toContain(password);
    }
  });

  it('uses Socket Mode when an app token is set, without a signing secret', () => {
    const config = loadConfig({ ...slack, SLACK_SIGNING_SECRET: '', SLACK_APP_TOKEN: 'xapp-1-abc' });
    expect(config.slack.mode).toBe('socket');
  });

  it('lists every problem at once, each with its variable and reason', () => {
    const problems = problemsOf({
      SLACK_BOT_TOKEN: 'xoxp-wrong',
      PORT: 'eighty',
      CNGN_API_KEY: 'sk_123',
      CNGN_APPROVERS: 'bob',
      CNGN_APPROVAL_TTL: 'tomorrow',
      CNGN_RATE_LIMIT: '20 per minute',
      STORE_URL: 'mysql://x',
      PUBLIC_URL: 'http://insecure.example.com',
    });
    const joined = problems.join('\n');
    for (const name of [
      'SLACK_BOT_TOKEN',
      'SLACK_SIGNING_SECRET',
      'CNGN_ENCRYPTION_KEY',
      'PORT',
      'CNGN_API_KEY',
      'CNGN_APPROVERS',
      'CNGN_APPROVAL_TTL',
      'CNGN_RATE_LIMIT',
      'STORE_URL',
      'PUBLIC_URL',
    ]) {
      expect(joined).toContain(`${name}:`);
    }
  });

  it('says in plain words what PORT and CNGN_RATE_LIMIT take, naming each variable once', () => {
    for (const port of ['eighty', '65536', '80.5']) {
      expect(problemsOf({ ...slack, PORT: port })).toContain('PORT: must be a port number from 0 to 65535');
    }
    expect(problemsOf({ ...slack, CNGN_RATE_LIMIT: '20 per minute' })).toContain(
      'CNGN_RATE_LIMIT: must look like 20/60s (so many requests per so many seconds), got "20 per minute"',
    );
  });

  it('asks for what a mode needs', () => {
    expect(problemsOf({ SLACK_BOT_TOKEN: 'xoxb-1' }).join('\n')).toMatch(
      /SLACK_SIGNING_SECRET: required in HTTP mode/,
    );
    expect(problemsOf({ ...slack, CNGN_APPROVERS: '' }).join('\n')).toMatch(
      /CNGN_APPROVERS or CNGN_APPROVER_GROUP/,
    );
    expect(problemsOf({ ...slack, CNGN_APPROVALS_CHANNEL: '' }).join('\n')).toMatch(
      /CNGN_APPROVALS_CHANNEL: required with approvers/,
    );
    const service = problemsOf({ CNGN_API_KEY: 'cngn_test_x' }).join('\n');
    expect(service).toMatch(/CNGN_ENCRYPTION_KEY: required/);
    expect(service).toMatch(/CNGN_PRIVATE_KEY/);
    expect(problemsOf({ CNGN_APPROVAL_TIERS: '0:1,abc' }).join('\n')).toMatch(/CNGN_APPROVAL_TIERS/);
  });

  it('refuses a top tier more approvers than the fixed list names (settlement could never pass)', () => {
    const tooFew = problemsOf({
      ...slack,
      CNGN_APPROVERS: 'U0AAA,U0BBB',
      CNGN_APPROVAL_TIERS: '0:1,1000000:3',
    });
    expect(tooFew.join('\n')).toMatch(/CNGN_APPROVERS: 2 approver\(s\) named, but .* needs 3/);
    expect(
      problemsOf({ ...slack, CNGN_APPROVERS: 'U0AAA,U0BBB', CNGN_APPROVAL_TIERS: '0:1,1000000:2' }),
    ).toEqual([]);
    // A user group may grow at any time: nothing to check at start-up.
    expect(
      problemsOf({ ...slack, CNGN_APPROVER_GROUP: 'S0TREASURY', CNGN_APPROVAL_TIERS: '0:1,1000000:3' }),
    ).toEqual([]);
  });

  it('reads per-kind alert channels and names the variable once in a problem with them', () => {
    const config = loadConfig({
      ...slack,
      CNGN_ALERTS_CHANNEL: 'C0ALERTS',
      CNGN_ALERT_ROUTES: 'deposit.*:C0DEPOSITS',
    });
    expect(config.alertRoutes).toBe('deposit.*:C0DEPOSITS');
    const bad = problemsOf({ ...slack, CNGN_ALERTS_CHANNEL: 'C0ALERTS', CNGN_ALERT_ROUTES: 'deposit.*' });
    expect(bad).toHaveLength(1);
    expect(bad[0]).toMatch(/^CNGN_ALERT_ROUTES: "deposit\.\*" should be <event or prefix\.\*>:<channel ID>/);
    expect(bad[0]).not.toMatch(/CNGN_ALERT_ROUTES:.*CNGN_ALERT_ROUTES:/);
  });

  it('refuses per-kind alert channels without the default alerts channel', () => {
    const problems = problemsOf({ ...slack, CNGN_ALERT_ROUTES: 'deposit.*:C0DEPOSITS' });
    expect(problems).toEqual([
      expect.stringMatching(/^CNGN_ALERTS_CHANNEL: required with CNGN_ALERT_ROUTES/),
    ]);
  });

  it('never puts a secret value into a problem', () => {
    const message = (() => {
      try {
        loadConfig({
          SLACK_BOT_TOKEN: 'xoxb-secret-value',
          SLACK_APP_TOKEN: 'not-xapp-secret',
          CNGN_API_KEY: 'cngn_test_secret',
        });
      } catch (error) {
        return String(error);
      }
      return '';
    })();
    expect(message).not.toContain('not-xapp-secret');
    expect(message).not.toContain('cngn_test_secret');
  });

  it('keeps the whole audit log unless a retention is set, and names a bad one', () => {
    expect(loadConfig(slack).auditRetentionMs).toBeUndefined();
    expect(loadConfig({ ...slack, CNGN_AUDIT_RETENTION: '400d' }).auditRetentionMs).toBe(400 * 86_400_000);
    expect(problemsOf({ ...slack, CNGN_AUDIT_RETENTION: 'a year' }).join('\n')).toMatch(
      /CNGN_AUDIT_RETENTION: must be a duration/,
    );
  });

  it('refuses a retention that would cut a request still waiting to be sent from the audit log', () => {
    expect(problemsOf({ ...slack, CNGN_AUDIT_RETENTION: '8d' }).join('\n')).toMatch(
      /CNGN_AUDIT_RETENTION: must be at least twice CNGN_APPROVAL_TTL \(a request may be extended once\) and 7 days more \(9d here\)/,
    );
    expect(loadConfig({ ...slack, CNGN_AUDIT_RETENTION: '9d' }).auditRetentionMs).toBe(9 * 86_400_000);
  });

  it('counts limits over 24 h with no daily limit unless told otherwise, and names a bad window or limit', () => {
    expect(loadConfig(slack)).toMatchObject({ limitWindowMs: 24 * 3_600_000, dailyLimit: undefined });
    const set = loadConfig({ ...slack, CNGN_LIMIT_WINDOW: '7d', CNGN_DAILY_LIMIT: '₦5,000,000.5' });
    expect(set).toMatchObject({ limitWindowMs: 7 * 86_400_000, dailyLimit: '5000000.50' });
    const problems = problemsOf({
      ...slack,
      CNGN_LIMIT_WINDOW: '90d',
      CNGN_DAILY_LIMIT: '0',
    }).join('\n');
    expect(problems).toMatch(/CNGN_LIMIT_WINDOW: must be between 1m and 31d/);
    expect(problems).toMatch(/CNGN_DAILY_LIMIT: must be a positive amount/);
    expect(problemsOf({ ...slack, CNGN_DAILY_LIMIT: '1.005' }).join('\n')).toMatch(/CNGN_DAILY_LIMIT: /);
  });

  it('archives the audit log beside the store unless told where; only to a file:// folder', () => {
    const sqlite = loadConfig({ ...slack, STORE_URL: 'sqlite:///var/lib/desk/desk.sqlite' });
    expect(sqlite.auditArchiveDir).toBe('/var/lib/desk/audit-archive');
    expect(sqlite.auditArchiveEveryMs).toBe(24 * 3_600_000);
    expect(loadConfig({ ...slack, STORE_URL: 'memory://' }).auditArchiveDir).toBeUndefined();
    expect(loadConfig({ ...slack, STORE_URL: 'redis://127.0.0.1:6379' }).auditArchiveDir).toBe(
      resolve('./data/audit-archive'),
    );
    const given = loadConfig({
      ...slack,
      CNGN_AUDIT_ARCHIVE: 'file:///srv/audit',
      CNGN_AUDIT_ARCHIVE_EVERY: '6h',
    });
    expect(given).toMatchObject({ auditArchiveDir: '/srv/audit', auditArchiveEveryMs: 6 * 3_600_000 });
    expect(loadConfig({ ...slack, CNGN_AUDIT_ARCHIVE: 'file://./data/audit-archive' }).auditArchiveDir).toBe(
      './data/audit-archive',
    );
    expect(problemsOf({ ...slack, CNGN_AUDIT_ARCHIVE: 's3://bucket/audit' })).toContain(
      'CNGN_AUDIT_ARCHIVE: must be a file:// URL of a folder, e.g. file://./data/audit-archive or file:///var/lib/cngn-desk/audit-archive (s3:// is not supported)',
    );
    expect(
      problemsOf({ ...slack, STORE_URL: 'memory://', CNGN_AUDIT_ARCHIVE: 'file:///srv/audit' }),
    ).toContain(
      'CNGN_AUDIT_SIGNING_KEY: required with CNGN_AUDIT_ARCHIVE on a memory:// store (there is no folder to keep a key made by the bot)',
    );
  });

  it('keeps the audit signing key out of logs, and refuses a key that is not Ed25519', () => {
    const pem = generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    const config = loadConfig({ ...slack, CNGN_AUDIT_SIGNING_KEY: pem });
    expect(config.auditSigningKey).toEqual({ pem, origin: 'CNGN_AUDIT_SIGNING_KEY' });
    expect(secretsOf(config)).toContain(pem.trim());
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 })
      .privateKey.export({ format: 'pem', type: 'pkcs8' })
      .toString();
    expect(problemsOf({ ...slack, CNGN_AUDIT_SIGNING_KEY: rsa })).toContain(
      'CNGN_AUDIT_SIGNING_KEY: is a rsa key; the audit is signed with an Ed25519 key',
    );
    expect(problemsOf({ ...slack, CNGN_AUDIT_SIGNING_KEY: 'not a key' }).join('\n')).toContain(
      'CNGN_AUDIT_SIGNING_KEY: is not a private key in PEM form',
    );
  });

  it('reminds at 50% and 90% of the lifetime unless told otherwise; none or empty turns reminders off', () => {
    expect(loadConfig(slack).approvalReminders).toEqual([
      { share: 0.5, label: '50%' },
      { share: 0.9, label: '90%' },
    ]);
    expect(loadConfig({ ...slack, CNGN_APPROVAL_REMINDERS: '25%, 75%, 95%' }).approvalReminders).toHaveLength(
      3,
    );
    expect(loadConfig({ ...slack, CNGN_APPROVAL_REMINDERS: 'none' }).approvalReminders).toEqual([]);
    expect(loadConfig({ ...slack, CNGN_APPROVAL_REMINDERS: '' }).approvalReminders).toEqual([]);
    const named = (value: string) => problemsOf({ ...slack, CNGN_APPROVAL_REMINDERS: value }).join('\n');
    expect(named('50')).toMatch(/CNGN_APPROVAL_REMINDERS: "50" is not a share of the lifetime/);
    expect(named('100%')).toMatch(/CNGN_APPROVAL_REMINDERS: "100%" is not a share/);
    expect(named('90%,50%')).toMatch(/CNGN_APPROVAL_REMINDERS: points must rise/);
  });

  it('parses durations', () => {
    expect(parseDuration('24h')).toBe(86_400_000);
    expect(parseDuration('90s')).toBe(90_000);
    expect(() => parseDuration('0m')).toThrow();
  });
});

describe('CNGN_APPROVAL_NOTIFY', () => {
  it('tells approvers by DM and in the channel unless told otherwise', () => {
    expect(loadConfig(slack).approvalNotify).toBe('both');
    expect(loadConfig({ ...slack, CNGN_APPROVAL_NOTIFY: ' DM ' }).approvalNotify).toBe('dm');
    expect(loadConfig({ ...slack, CNGN_APPROVAL_NOTIFY: 'channel' }).approvalNotify).toBe('channel');
  });

  it('names the variable and the choices when the value is none of them', () => {
    expect(problemsOf({ ...slack, CNGN_APPROVAL_NOTIFY: 'email' })).toContain(
      'CNGN_APPROVAL_NOTIFY: must be dm, channel or both',
    );
  });
});

describe('CNGN_START_FROZEN', () => {
  it('starts with sends frozen only when set to 1, true or yes', () => {
    expect(loadConfig(slack).startFrozen).toBe(false);
    for (const on of ['1', 'true', ' YES ']) {
      expect(loadConfig({ ...slack, CNGN_START_FROZEN: on }).startFrozen).toBe(true);
    }
    for (const off of ['0', 'false', 'no', '']) {
      expect(loadConfig({ ...slack, CNGN_START_FROZEN: off }).startFrozen).toBe(false);
    }
  });

  it('names the variable when the value is neither', () => {
    expect(problemsOf({ ...slack, CNGN_START_FROZEN: 'maybe' })).toContain(
      'CNGN_START_FROZEN: must be 1, true or yes (or 0, false, no)',
    );
  });
});

describe('ADMIN_PORT and ADMIN_HOST; METRICS_PORT and METRICS_HOST', () => {
  it('serves the probes and metrics on 127.0.0.1:9091 unless set otherwise, and no metrics-only port', () => {
    expect(loadConfig(slack).admin).toEqual({ port: 9091, host: '127.0.0.1' });
    expect(loadConfig(slack).metricsListener).toBeUndefined();
    expect(loadConfig({ ...slack, ADMIN_PORT: '9464', ADMIN_HOST: '::' }).admin).toEqual({
      port: 9464,
      host: '::',
    });
  });

  it('turns the admin listener off with ADMIN_PORT=0', () => {
    expect(loadConfig({ ...slack, ADMIN_PORT: '0' }).admin).toBeUndefined();
    expect(loadConfig({ ...slack, ADMIN_PORT: ' 0 ', ADMIN_HOST: '0.0.0.0' }).admin).toBeUndefined();
  });

  it('serves /metrics alone on METRICS_PORT, leaving the probes where ADMIN_PORT puts them', () => {
    const config = loadConfig({ ...slack, METRICS_PORT: '9464', METRICS_HOST: '0.0.0.0' });
    expect(config.metricsListener).toEqual({ port: 9464, host: '0.0.0.0' });
    expect(config.admin).toEqual({ port: 9091, host: '127.0.0.1' });
    expect(loadConfig({ ...slack, METRICS_PORT: '9464' }).metricsListener).toEqual({
      port: 9464,
      host: '127.0.0.1',
    });
    // METRICS_HOST alone opens nothing: METRICS_PORT says whether there is a metrics-only listener.
    expect(loadConfig({ ...slack, METRICS_HOST: '0.0.0.0' }).metricsListener).toBeUndefined();
    const adminOff = loadConfig({ ...slack, ADMIN_PORT: '0', METRICS_PORT: '9464' });
    expect([adminOff.admin, adminOff.metricsListener]).toEqual([
      undefined,
      { port: 9464, host: '127.0.0.1' },
    ]);
  });

  it("refuses METRICS_PORT on the admin listener's own port, whatever the hosts (a wildcard overlaps)", () => {
    const problem = 'METRICS_PORT: 9091 is ADMIN_PORT too, which serves /metrics already: unset METRICS_PORT';
    expect(problemsOf({ ...slack, METRICS_PORT: '9091' })).toContain(problem);
    expect(problemsOf({ ...slack, METRICS_PORT: '9091', METRICS_HOST: '0.0.0.0' })).toContain(problem);
    expect(problemsOf({ ...slack, ADMIN_PORT: '9464', METRICS_PORT: '9464' })).toContain(
      'METRICS_PORT: 9464 is ADMIN_PORT too, which serves /metrics already: unset METRICS_PORT',
    );
  });

  it('refuses ADMIN_PORT or METRICS_PORT on the public port', () => {
    expect(problemsOf({ ...slack, ADMIN_PORT: '3000' })).toContain(
      'ADMIN_PORT: 3000 is PORT too, the public port: give the admin listener its own',
    );
    expect(problemsOf({ ...slack, PORT: '8080', METRICS_PORT: '8080' })).toContain(
      'METRICS_PORT: 8080 is PORT too, the public port: give /metrics its own',
    );
    expect(problemsOf({ ...slack, PORT: '8080', ADMIN_PORT: '0' })).toEqual([]);
  });

  it('names METRICS_PORT or METRICS_HOST when it is not a port or an address (0 is not: unset it)', () => {
    for (const port of ['0', '65536', 'nine', '94.64', '-1']) {
      expect(problemsOf({ ...slack, METRICS_PORT: port })).toContain(
        'METRICS_PORT: must be a port number from 1 to 65535 (unset it for no metrics listener)',
      );
    }
    expect(problemsOf({ ...slack, METRICS_HOST: 'not a host' })).toContain(
      'METRICS_HOST: must be an IP address or a host name',
    );
  });

  it('names the variable when the port or the address is not one', () => {
    for (const port of ['65536', 'nine', '94.64', '-1']) {
      expect(problemsOf({ ...slack, ADMIN_PORT: port })).toContain(
        'ADMIN_PORT: must be a port number from 0 to 65535',
      );
    }
    expect(problemsOf({ ...slack, ADMIN_HOST: 'not a host' })).toContain(
      'ADMIN_HOST: must be an IP address or a host name',
    );
  });
});
