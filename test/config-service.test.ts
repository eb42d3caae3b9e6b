// The variables that carry a credential to another host: CNGN_API_KEY is the key alone (trimmed as
// its file form is), and CNGN_BASE_URL and SLACK_API_URL send theirs over https, or to this machine.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { keyId } from '../src/cngn/credentials.js';
import { loadConfig } from '../src/config.js';
import { problemsOf, SLACK_ENV } from './support/config-env.js';

const SERVICE_ENV = {
  ...SLACK_ENV,
  CNGN_API_KEY: 'cngn_live_0123456789abcdef',
  CNGN_ENCRYPTION_KEY: 'enc-key',
  CNGN_PRIVATE_KEY: readFileSync(new URL('./fixtures/test_ed25519', import.meta.url).pathname, 'utf8'),
};

function apiKeyOf(env: Record<string, string>): string {
  const { service } = loadConfig(env);
  if (service.mode !== 'service') throw new Error('expected the service');
  return service.apiKey;
}

describe('CNGN_API_KEY', () => {
  it('takes a key given with a line break at the end as the same key its file gives', () => {
    for (const written of ['cngn_test_abc123\n', 'cngn_test_abc123\r\n', ' cngn_test_abc123 ']) {
      const key = apiKeyOf({ ...SERVICE_ENV, CNGN_API_KEY: written });
      expect(key).toBe('cngn_test_abc123');
      expect(keyId(key)).toBe(keyId('cngn_test_abc123'));
    }
  });

  it('refuses a key holding a space, line break or quote, naming the variable and never the key', () => {
    for (const written of [
      'cngn_live_abc\ndef',
      'cngn_live_abc def',
      '"cngn_live_abcdef"',
      'cngn_live_abc"',
    ]) {
      const problems = problemsOf({ ...SERVICE_ENV, CNGN_API_KEY: written });
      expect(problems.filter((p) => p.startsWith('CNGN_API_KEY:'))).toHaveLength(1);
      expect(problems.join('\n')).not.toContain('abc');
    }
  });

  it('says a wrong start once', () => {
    expect(problemsOf({ ...SERVICE_ENV, CNGN_API_KEY: 'sk_123' })).toEqual([
      'CNGN_API_KEY: must start with cngn_test_ or cngn_live_',
    ]);
  });

  it('takes the key forms the service and the sandbox hand out', () => {
    // The service documents no alphabet: any visible character a header may carry is taken.
    for (const key of [
      'cngn_live_sk_AbC123',
      'cngn_test_0f3a9c2e7d1b4a55',
      'cngn_test_some-key_01',
      'cngn_live_a.b+c/d=',
    ]) {
      expect(apiKeyOf({ ...SERVICE_ENV, CNGN_API_KEY: key })).toBe(key);
    }
  });
});

describe('CNGN_BASE_URL and SLACK_API_URL', () => {
  const sending = { CNGN_BASE_URL: 'the service key', SLACK_API_URL: 'the bot token' };

  for (const name of Object.keys(sending) as Array<keyof typeof sending>) {
    it(`refuses a ${name} that would send ${sending[name]} in clear text, naming the variable`, () => {
      for (const url of ['http://api.example.com', 'http://10.0.0.5:8080/api/', 'ftp://api.example.com']) {
        const problems = problemsOf({ ...SERVICE_ENV, [name]: url });
        expect(problems).toHaveLength(1);
        expect(problems[0]).toMatch(new RegExp(`^${name}: must be an https:// URL`));
      }
    });

    it(`takes an https ${name}, or plain http to this machine (emulators, tests)`, () => {
      for (const url of [
        'https://api.example.com',
        'http://127.0.0.1:4010',
        'http://127.0.0.2:4010/api/',
        'http://[::1]:4010',
        'http://localhost:4010',
      ]) {
        expect(problemsOf({ ...SERVICE_ENV, [name]: url })).toEqual([]);
      }
    });
  }
});
