// The logger (pino): one JSON line per event with the documented fields, no secret of any kind in it,
// errors with their type and stack, children carrying their ids, nothing written below the level.
import { describe, expect, it } from 'vitest';
import { createLogger, type LogLevel } from '../src/log.js';

function capture(level: LogLevel = 'debug', secrets: string[] = []) {
  const lines: string[] = [];
  const log = createLogger(level, { secrets, write: (line) => lines.push(line) });
  const entries = () => lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  return { log, lines, entries };
}

describe('a log line', () => {
  it('is one JSON object on one line: level, time, message and the fields given', () => {
    const { log, lines, entries } = capture();
    log.info('cngn-desk is running', { url: 'http://127.0.0.1:3000', slack: 'http', note: 'two\nlines' });
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toContain('\n');
    expect(entries()[0]).toEqual({
      level: 'info',
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      message: 'cngn-desk is running',
      url: 'http://127.0.0.1:3000',
      slack: 'http',
      note: 'two\nlines',
    });
  });

  it('writes a field named __proto__ (JSON.parse makes one) as a field', () => {
    const { log, entries } = capture();
    log.warn('odd body', JSON.parse('{"__proto__":{"polluted":true},"ok":1}') as Record<string, unknown>);
    expect(entries()[0]).toMatchObject({ ok: 1 });
    expect(JSON.stringify(entries()[0])).toContain('"__proto__":{"polluted":true}');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('writes nothing below its level, and nothing at all when silent', () => {
    const { log, entries } = capture('warn');
    log.debug('quiet');
    log.info('quiet');
    log.warn('loud');
    log.error('louder');
    expect(entries().map((e) => [e.level, e.message])).toEqual([
      ['warn', 'loud'],
      ['error', 'louder'],
    ]);
    const silent = capture('silent');
    silent.log.error('never');
    expect(silent.lines).toEqual([]);
  });
});

describe('secrets', () => {
  const PEM = [
    '-----BEGIN PRIVATE KEY-----',
    'MC4CAQAwBQYDK2VwBCIEIHJ0aGlzaXNub3RhcmVhbGtleWJ1dGl0bG9va3NsaWtlb25l',
    '-----END PRIVATE KEY-----',
  ].join('\n');
  const kinds: Array<[string, string]> = [
    ['a Slack bot token', 'xoxb-1111-2222-abcdefABCDEF'],
    ['a Slack user token', 'xoxp-3333-4444-abcdef'],
    ['a Slack app token', 'xapp-1-A111-222-abcdef'],
    ['a live service key', 'cngn_live_abcdef123456'],
    ['a test service key', 'cngn_test_zzzyyyxxx'],
    ['an Authorization header', 'Bearer eyJhbGciOi.payload.sig'],
    ['a private key', PEM],
  ];

  it.each(kinds)('never writes %s, in the message, a field, an error or a child binding', (_kind, secret) => {
    const { log, lines } = capture();
    log.info(`calling with ${secret}`, {
      detail: `near ${secret} here`,
      list: [`${secret}`],
      error: new Error(`failed for ${secret}`),
    });
    log.child({ context: `for ${secret}` }).warn('child');
    const out = lines.join('\n');
    expect(out).toContain('[redacted]');
    const telling = secret.includes('PRIVATE KEY')
      ? 'MC4CAQAwBQYDK2VwBCIEIHJ0aGlz'
      : secret.replace('Bearer ', '');
    expect(out).not.toContain(telling);
  });

  it('never writes a configured secret value (signing secret, encryption key, store password)', () => {
    const configured = ['app-signing-secret-123', 'my-encryption-key', 's@cret-password'];
    const { log, lines } = capture('debug', configured);
    log.error('store failed: password s@cret-password was refused', {
      signed: 'with app-signing-secret-123',
      nested: { deeper: { note: 'uses my-encryption-key' } },
      error: new TypeError('bad key my-encryption-key'),
    });
    const out = lines.join('\n');
    for (const value of configured) expect(out).not.toContain(value);
  });

  it('never writes a configured secret holding a + / or @ in part, nor its encoded forms', () => {
    const key = 'cngn_live_AbC+dEf/123';
    const password = 'p@ss w0rd';
    const webhook = 'whsec+abc/def=ghi';
    const { log, lines } = capture('debug', [key, password, webhook]);
    log.error('refused', {
      header: `key ${key}`,
      url: `redis://:${password}@h`,
      query: `?secret=${encodeURIComponent(webhook)}`,
      dumped: Buffer.from(webhook).toString('base64'),
      safe: Buffer.from(webhook).toString('base64url'),
      basic: 'Authorization: Basic dTpwdw==',
      sent: '{"authorization":"basic dTpwdw=="}',
    });
    const out = lines.join('\n');
    for (const part of ['dEf/123', 'ss w0rd', 'abc/def', encodeURIComponent(webhook), 'dTpwdw==']) {
      expect(out).not.toContain(part);
    }
    expect(out).not.toContain(Buffer.from(webhook).toString('base64').slice(0, 12));
  });

  it('keeps words that only look like a Basic credential (a Slack app page name) in a hint', () => {
    const { log, entries } = capture('debug');
    log.error('SLACK_SIGNING_SECRET: required in HTTP mode — from "Basic Information" of your Slack app');
    expect(entries()[0]?.message).toContain('"Basic Information" of your Slack app');
  });

  it('writes bytes as their length, never one by one', () => {
    const { log, lines, entries } = capture('debug');
    log.warn('raw', { body: Buffer.from('whsec-raw-bytes'), view: new Uint8Array(3) });
    expect(entries()[0]).toMatchObject({ body: '[binary 15 bytes]', view: '[binary 3 bytes]' });
    expect(lines.join('\n')).not.toContain('119');
  });

  it('never writes the user and password of a URL, even one Node could not parse (its `input`)', () => {
    const { log, lines, entries } = capture();
    const unparsed = Object.assign(new TypeError('Invalid URL'), {
      code: 'ERR_INVALID_URL',
      input: 'redis://desk:s3cretpass@localhost:99999',
    });
    log.error('could not start from postgres://app:pg-pass@db.internal:5432/desk', {
      error: unparsed,
      note: 'tried rediss://:only-password@cache:6380 and amqp://guest:p@ss/word@mq:5672 and redis://desk:8443x/pw@db:6379',
      more: 'postgres://u:123/abc-pw@h/db redis://u:12345?qpw@h redis://u:p"quote-pw@h my_redis://u:under-pw@h',
    });
    const out = lines.join('\n');
    for (const part of [
      's3cretpass',
      'pg-pass',
      'only-password',
      'p@ss',
      'ss/word',
      '8443x',
      '123/abc-pw',
      '12345?qpw',
      'quote-pw',
      'under-pw',
      'desk:',
      'app:',
    ])
      expect(out).not.toContain(part);
    expect(entries()[0]).toMatchObject({
      message: 'could not start from postgres://[redacted]@db.internal:5432/desk',
      error: { code: 'ERR_INVALID_URL', input: 'redis://[redacted]@localhost:99999' },
    });
  });

  it('leaves a URL without credentials as it is, an @ in its path included', () => {
    const { log, entries } = capture();
    const urls = 'http://127.0.0.1:3000/x https://registry.npmjs.org/@slack%2fbolt mail ada@example.com';
    log.info(urls);
    expect(entries()[0]?.message).toBe(urls);
  });

  it('hides an @ in a path or query after a port, which reads as a password that starts with digits', () => {
    const { log, entries } = capture();
    log.info('https://host:8443/@scope http://h:3000/x?to=a@b');
    expect(entries()[0]?.message).toBe('https://[redacted]@scope http://[redacted]@b');
  });

  it('writes every field named like a secret as [redacted], at any depth it writes', () => {
    const { log, entries } = capture();
    log.warn('fields', {
      apiKey: 'k1',
      signingSecret: 'k2',
      nested: { headers: { Authorization: 'k3', 'x-slack-signature': 'v0=k4' }, password: 'k5' },
      list: [{ botToken: 'k6' }],
      privateKeyFile: '/etc/key',
    });
    expect(entries()[0]).toMatchObject({
      apiKey: '[redacted]',
      signingSecret: '[redacted]',
      nested: {
        headers: { Authorization: '[redacted]', 'x-slack-signature': '[redacted]' },
        password: '[redacted]',
      },
      list: [{ botToken: '[redacted]' }],
      privateKeyFile: '[redacted]',
    });
  });

  it('writes fields named for keys in other words as [redacted]: a PEM, credentials, a passphrase', () => {
    const { log, entries } = capture();
    log.warn('fields', { pem: 'k1', credentials: { user: 'u' }, keyPassphrase: 'k2', Authorisation: 'k3' });
    expect(entries()[0]).toMatchObject({
      pem: '[redacted]',
      credentials: '[redacted]',
      keyPassphrase: '[redacted]',
      Authorisation: '[redacted]',
    });
  });

  it('never writes what lies deeper than it walks (Bolt hands over nested objects)', () => {
    const { log, lines } = capture();
    log.warn('deep', {
      original: { config: { request: { options: { headers: { Authorisation: 'Basic dXNlcjpwYXNz' } } } } },
    });
    expect(lines.join('\n')).not.toContain('dXNlcjpwYXNz');
    expect(lines.join('\n')).toContain('[truncated]');
  });

  it('cuts long text only after redacting it, so no part of a secret survives the cut', () => {
    const secret = 'configured-secret-value-0123456789';
    const { log, entries } = capture('debug', [secret]);
    const at = 4_000 - 10; // the secret straddles the cut
    log.info('long', { text: `${'a'.repeat(at)}${secret}${'b'.repeat(10_000)}` });
    const text = String(entries()[0]?.text);
    expect(text).not.toContain(secret.slice(0, 10));
    expect(text).toMatch(/… \(\d+ more characters\)$/);
    expect(text.length).toBeLessThan(4_100);
  });
});

describe('errors', () => {
  it("are written with pino's serializer: type, message, stack, causes and own fields", () => {
    const { log, entries } = capture();
    const error = Object.assign(new TypeError('outer', { cause: new RangeError('inner') }), {
      code: 'E_TEST',
    });
    log.error('failed', { error });
    const written = entries()[0]?.error as Record<string, unknown>;
    expect(written).toMatchObject({ type: 'TypeError', message: 'outer: inner', code: 'E_TEST' });
    expect(String(written.stack)).toMatch(/^TypeError: outer\n\s+at .*log\.test\.ts:\d+:\d+/);
    expect(String(written.stack)).toContain('caused by: RangeError: inner');
  });

  it('are serialized wherever they are in the fields (Bolt passes them in a list)', () => {
    const { log, entries } = capture();
    log.warn('bolt', { details: [new Error('from Bolt')] });
    expect(entries()[0]).toMatchObject({ details: [{ type: 'Error', message: 'from Bolt' }] });
  });
});

describe('a child logger', () => {
  it('writes its ids on every line, its children theirs too, and the parent stays as it was', () => {
    const { log, entries } = capture();
    const request = log.child({ slackRequestId: 'Ev01ABC' });
    request.info('one');
    request.child({ webhookId: 'w1' }).warn('two', { extra: 1 });
    log.info('three');
    expect(entries().map(({ time: _time, ...rest }) => rest)).toEqual([
      { level: 'info', slackRequestId: 'Ev01ABC', message: 'one' },
      { level: 'warn', slackRequestId: 'Ev01ABC', webhookId: 'w1', extra: 1, message: 'two' },
      { level: 'info', message: 'three' },
    ]);
  });
});

describe('at a terminal', () => {
  it('writes lines for people (pino-pretty): level, message and fields, secrets still redacted', () => {
    const lines: string[] = [];
    const log = createLogger('info', {
      pretty: true,
      secrets: ['s3cr3t-value'],
      write: (l) => lines.push(l),
    });
    log.info('approval request approved', { requestId: 'req_1', kind: 'withdraw', note: 'key s3cr3t-value' });
    expect(lines).toHaveLength(1);
    const [line = ''] = lines;
    expect(() => JSON.parse(line)).toThrow();
    expect(line).toMatch(/INFO.*approval request approved/);
    expect(line).toMatch(/requestId: "req_1"/);
    expect(line).not.toContain('s3cr3t-value');
  });

  it('writes JSON when not asked for people (a file, a pipe, a container)', () => {
    const lines: string[] = [];
    createLogger('info', { write: (l) => lines.push(l) }).info('plain');
    expect(JSON.parse(lines[0] ?? '')).toMatchObject({ message: 'plain' });
  });
});
