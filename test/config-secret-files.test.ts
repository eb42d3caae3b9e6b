// Secrets read from files (<NAME>_FILE): every secret may come from one, never both ways, and a
// problem names the variable and the path but never the file's content.
import { generateKeyPairSync } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { FILE_SECRETS, loadConfig, secretsOf } from '../src/config.js';
import { problemsOf, SLACK_ENV } from './support/config-env.js';
import { tempDirTest } from './support/fixtures.js';

/** `file(name, text)` writes a secret file in the file's temporary directory and gives its path. */
const it = tempDirTest.extend('file', ({ tempDir }) => (name: string, text: string) => {
  const path = join(tempDir, name);
  writeFileSync(path, text, { mode: 0o600 });
  return path;
});

const slack = SLACK_ENV;
const keyFile = new URL('./fixtures/test_ed25519', import.meta.url).pathname;

describe('secrets from files (<NAME>_FILE)', () => {
  const keyText = readFileSync(keyFile, 'utf8');
  const auditKey = generateKeyPairSync('ed25519')
    .privateKey.export({ format: 'pem', type: 'pkcs8' })
    .toString();

  it('reads every secret from the file its _FILE variable names, without the line break at the end', ({
    file,
  }) => {
    const config = loadConfig({
      CNGN_APPROVALS_CHANNEL: 'C0APPROVALS',
      CNGN_APPROVERS: 'U0AAA',
      SLACK_BOT_TOKEN_FILE: file('bot', 'xoxb-from-a-file\n'),
      SLACK_SIGNING_SECRET_FILE: file('signing', 'signing-from-a-file\r\n'),
      SLACK_APP_TOKEN_FILE: file('app', 'xapp-from-a-file'),
      CNGN_API_KEY_FILE: file('api', 'cngn_test_from_a_file\n\n'),
      CNGN_ENCRYPTION_KEY_FILE: file('encryption', 'encryption-from-a-file\n'),
      CNGN_PRIVATE_KEY_FILE: keyFile,
      CNGN_WEBHOOK_SECRET_FILE: file('webhook', 'webhook-from-a-file\n'),
      CNGN_AUDIT_SIGNING_KEY_FILE: file('audit-key', auditKey),
      STORE_URL_FILE: file('store-url', 'postgres://desk:pw-from-a-file@db:5432/desk\n'),
    });
    expect(config.slack).toMatchObject({
      botToken: 'xoxb-from-a-file',
      signingSecret: 'signing-from-a-file',
      appToken: 'xapp-from-a-file',
      mode: 'socket',
    });
    expect(config.service).toMatchObject({
      mode: 'service',
      apiKey: 'cngn_test_from_a_file',
      encryptionKey: 'encryption-from-a-file',
      privateKey: keyText.trim(),
    });
    expect(config.webhookSecret).toBe('webhook-from-a-file');
    expect(config.auditSigningKey).toEqual({ pem: auditKey.trim(), origin: 'CNGN_AUDIT_SIGNING_KEY_FILE' });
    expect(config.storeUrl).toBe('postgres://desk:pw-from-a-file@db:5432/desk');
    // Redacted in logs as a value from a variable is.
    expect(secretsOf(config)).toEqual(
      expect.arrayContaining([
        'xoxb-from-a-file',
        'cngn_test_from_a_file',
        'webhook-from-a-file',
        'pw-from-a-file',
      ]),
    );
  });

  it('refuses a secret given both ways, naming the variable, for every secret', ({ file }) => {
    for (const name of FILE_SECRETS) {
      const problems = problemsOf({ ...slack, [name]: 'value', [`${name}_FILE`]: file(name, 'value\n') });
      expect(problems).toContain(`${name}: set both ${name} and ${name}_FILE; keep one of them`);
    }
  });

  it('names the variable and the path of a file it cannot read or that is empty', ({
    file,
    tempDir: dir,
  }) => {
    const missing = join(dir, 'missing');
    const folder = join(dir, 'a-folder');
    mkdirSync(folder);
    const problems = problemsOf({
      ...slack,
      SLACK_SIGNING_SECRET: '',
      SLACK_SIGNING_SECRET_FILE: missing,
      CNGN_WEBHOOK_SECRET_FILE: folder,
      CNGN_ENCRYPTION_KEY_FILE: file('empty', '\n'),
    });
    expect(problems).toEqual(
      expect.arrayContaining([
        `SLACK_SIGNING_SECRET_FILE: cannot read ${missing} (ENOENT)`,
        `CNGN_WEBHOOK_SECRET_FILE: cannot read ${folder} (EISDIR)`,
        `CNGN_ENCRYPTION_KEY_FILE: ${join(dir, 'empty')} is empty`,
      ]),
    );
  });

  it('reports a file it cannot read once, not also as the secret missing', ({ tempDir: dir }) => {
    const missing = join(dir, 'not-there');
    const { SLACK_BOT_TOKEN: _bot, ...withoutBotToken } = slack;
    expect(problemsOf({ ...withoutBotToken, SLACK_BOT_TOKEN_FILE: missing })).toEqual([
      `SLACK_BOT_TOKEN_FILE: cannot read ${missing} (ENOENT)`,
    ]);
    expect(
      problemsOf({
        ...slack,
        CNGN_API_KEY: 'cngn_test_abc',
        CNGN_ENCRYPTION_KEY: 'enc',
        CNGN_PRIVATE_KEY_FILE: missing,
      }),
    ).toEqual([`CNGN_PRIVATE_KEY_FILE: cannot read ${missing} (ENOENT)`]);
    // Socket Mode was meant: no signing secret is asked for.
    const { SLACK_SIGNING_SECRET: _signing, ...withoutSigningSecret } = slack;
    expect(problemsOf({ ...withoutSigningSecret, SLACK_APP_TOKEN_FILE: missing })).toEqual([
      `SLACK_APP_TOKEN_FILE: cannot read ${missing} (ENOENT)`,
    ]);
  });

  it("names a malformed value by the _FILE variable that gave it, never showing the file's content", ({
    file,
  }) => {
    const problems = problemsOf({
      ...slack,
      SLACK_BOT_TOKEN: '',
      SLACK_BOT_TOKEN_FILE: file('user-token', 'xoxp-a-user-token-not-a-bot-token\n'),
      CNGN_API_KEY: 'cngn_test_abc',
      CNGN_ENCRYPTION_KEY: 'enc',
      CNGN_PRIVATE_KEY_FILE: file('not-a-key', 'hello\n'),
    });
    expect(problems).toContain('SLACK_BOT_TOKEN_FILE: must start with xoxb-');
    expect(problems.join('\n')).toMatch(/^CNGN_PRIVATE_KEY_FILE \(.*not-a-key\): .*not in OpenSSH format/m);
    expect(problems.join('\n')).not.toMatch(/xoxp-a-user-token|hello/);
  });

  it('lets a blank variable stand aside for its file', ({ file }) => {
    const config = loadConfig({
      ...slack,
      SLACK_BOT_TOKEN: ' ',
      SLACK_BOT_TOKEN_FILE: file('b', 'xoxb-f\n'),
    });
    expect(config.slack.botToken).toBe('xoxb-f');
  });
});
