// CNGN_WEBHOOK_SECRET_PREVIOUS: read from the environment or a file, redacted like the current secret,
// and refused without the current one (a rotation half done).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { loadConfig, secretsOf } from '../src/config.js';
import { problemsOf, SLACK_ENV } from './support/config-env.js';
import { tempDirTest as it } from './support/fixtures.js';

describe('the previous webhook secret (CNGN_WEBHOOK_SECRET_PREVIOUS)', () => {
  it('is unset unless given', () => {
    const config = loadConfig({ ...SLACK_ENV, CNGN_WEBHOOK_SECRET: 'whsec_new' });
    expect(config.webhookSecret).toBe('whsec_new');
    expect(config.webhookSecretPrevious).toBeUndefined();
  });

  it('is read beside the current secret, and given to the logger to redact', () => {
    const config = loadConfig({
      ...SLACK_ENV,
      CNGN_WEBHOOK_SECRET: 'whsec_new',
      CNGN_WEBHOOK_SECRET_PREVIOUS: ' whsec_old ',
    });
    expect(config.webhookSecretPrevious).toBe('whsec_old');
    expect(secretsOf(config)).toEqual(expect.arrayContaining(['whsec_new', 'whsec_old']));
  });

  it('comes from the file CNGN_WEBHOOK_SECRET_PREVIOUS_FILE names, but not from both', ({ tempDir }) => {
    const path = join(tempDir, 'previous');
    writeFileSync(path, 'whsec_old_from_a_file\n', { mode: 0o600 });
    const config = loadConfig({
      ...SLACK_ENV,
      CNGN_WEBHOOK_SECRET: 'whsec_new',
      CNGN_WEBHOOK_SECRET_PREVIOUS_FILE: path,
    });
    expect(config.webhookSecretPrevious).toBe('whsec_old_from_a_file');
    expect(
      problemsOf({
        ...SLACK_ENV,
        CNGN_WEBHOOK_SECRET: 'whsec_new',
        CNGN_WEBHOOK_SECRET_PREVIOUS: 'whsec_old',
        CNGN_WEBHOOK_SECRET_PREVIOUS_FILE: path,
      }),
    ).toEqual([
      'CNGN_WEBHOOK_SECRET_PREVIOUS: set both CNGN_WEBHOOK_SECRET_PREVIOUS and CNGN_WEBHOOK_SECRET_PREVIOUS_FILE; keep one of them',
    ]);
  });

  it('is refused without the current secret, naming neither value', () => {
    const problems = problemsOf({ ...SLACK_ENV, CNGN_WEBHOOK_SECRET_PREVIOUS: 'whsec_old' });
    expect(problems).toEqual([
      'CNGN_WEBHOOK_SECRET_PREVIOUS: set only with CNGN_WEBHOOK_SECRET (the new secret) during a rotation',
    ]);
    expect(problems.join('\n')).not.toContain('whsec_old');
  });
});
