// Passkey-signed approvals' settings: CNGN_SIGNED_APPROVALS (off, all, above:<amount>) and
// CNGN_SIGNING_URL (https, plain http only on localhost, never an IP address; PUBLIC_URL when unset),
// whose host is the WebAuthn relying party id. Signed approvals without anywhere to sign stop start-up with one line.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { Money } from '../src/format/money.js';
import { problemsOf, SLACK_ENV } from './support/config-env.js';

describe('signed approvals (CNGN_SIGNED_APPROVALS, CNGN_SIGNING_URL)', () => {
  it('are off by default, and off whatever the signing URL says', () => {
    expect(loadConfig({ ...SLACK_ENV }).signing).toBeUndefined();
    expect(loadConfig({ ...SLACK_ENV, PUBLIC_URL: 'https://desk.example.com' }).signing).toBeUndefined();
    const off = loadConfig({
      ...SLACK_ENV,
      CNGN_SIGNED_APPROVALS: ' OFF ',
      CNGN_SIGNING_URL: 'https://sign.example.com',
    });
    expect(off.signing).toBeUndefined();
  });

  it('take the relying party and origin from CNGN_SIGNING_URL, without its path', () => {
    const config = loadConfig({
      ...SLACK_ENV,
      CNGN_SIGNED_APPROVALS: 'all',
      CNGN_SIGNING_URL: 'https://sign.example.com:8443/desk/',
      PUBLIC_URL: 'https://desk.example.com',
    });
    expect(config.signing).toEqual({
      rule: { mode: 'all' },
      rpId: 'sign.example.com',
      origin: 'https://sign.example.com:8443',
    });
  });

  it('default to PUBLIC_URL for the signing URL', () => {
    const config = loadConfig({
      ...SLACK_ENV,
      CNGN_SIGNED_APPROVALS: 'above:250000',
      PUBLIC_URL: 'https://desk.example.com/',
    });
    expect(config.signing?.rpId).toBe('desk.example.com');
    expect(config.signing?.origin).toBe('https://desk.example.com');
    expect(config.signing?.rule.mode).toBe('above');
    const rule = config.signing?.rule;
    expect(rule?.mode === 'above' && rule.amount.compare(Money.parse('250000'))).toBe(0);
  });

  it('accept plain http on localhost only (a secure context for browsers)', () => {
    const config = loadConfig({
      ...SLACK_ENV,
      CNGN_SIGNED_APPROVALS: 'all',
      CNGN_SIGNING_URL: 'http://localhost:3000',
    });
    expect(config.signing).toMatchObject({ rpId: 'localhost', origin: 'http://localhost:3000' });
    const problems = problemsOf({
      ...SLACK_ENV,
      CNGN_SIGNED_APPROVALS: 'all',
      CNGN_SIGNING_URL: 'http://desk.internal:3000',
    });
    expect(problems).toEqual([
      'CNGN_SIGNING_URL: must be https:// (plain http:// only on localhost): browsers use passkeys only in a secure context',
    ]);
    // Refused even while approvals are not signed: the setting is wrong either way.
    expect(problemsOf({ ...SLACK_ENV, CNGN_SIGNING_URL: 'http://desk.internal' })).toHaveLength(1);
    expect(problemsOf({ ...SLACK_ENV, CNGN_SIGNING_URL: 'ftp://desk.example.com' })).toEqual([
      'CNGN_SIGNING_URL: must be an https:// URL',
    ]);
    expect(problemsOf({ ...SLACK_ENV, CNGN_SIGNING_URL: 'desk.example.com' })).toEqual([
      'CNGN_SIGNING_URL: must be a URL such as https://desk.example.com',
    ]);
  });

  it('refuse an IP address for the signing site, given or from PUBLIC_URL, in one line', () => {
    const line =
      "use a host name, e.g. http://localhost:3000: browsers refuse an IP address as a passkey's site";
    for (const url of [
      'http://127.0.0.1:3000/',
      'http://[::1]:3000',
      'https://203.0.113.7',
      'https://[2001:db8::1]',
    ]) {
      expect(problemsOf({ ...SLACK_ENV, CNGN_SIGNED_APPROVALS: 'all', CNGN_SIGNING_URL: url })).toEqual([
        `CNGN_SIGNING_URL: ${line}`,
      ]);
    }
    // PUBLIC_URL stands in for the signing URL only while signing is on.
    expect(
      problemsOf({ ...SLACK_ENV, CNGN_SIGNED_APPROVALS: 'all', PUBLIC_URL: 'https://203.0.113.7' }),
    ).toEqual([`PUBLIC_URL (the signing URL while CNGN_SIGNING_URL is unset): ${line}`]);
    expect(problemsOf({ ...SLACK_ENV, PUBLIC_URL: 'https://203.0.113.7' })).toEqual([]);
    const named = loadConfig({
      ...SLACK_ENV,
      CNGN_SIGNED_APPROVALS: 'all',
      PUBLIC_URL: 'https://203.0.113.7',
      CNGN_SIGNING_URL: 'https://sign.example.com',
    });
    expect(named.signing?.rpId).toBe('sign.example.com');
  });

  it('stop start-up naming the variable and the reason when the rule cannot be read', () => {
    expect(problemsOf({ ...SLACK_ENV, CNGN_SIGNED_APPROVALS: 'sometimes' })).toEqual([
      'CNGN_SIGNED_APPROVALS: "sometimes" is not off, all or above:<amount>',
    ]);
    const [problem, ...rest] = problemsOf({ ...SLACK_ENV, CNGN_SIGNED_APPROVALS: 'above:lots' });
    expect(problem).toMatch(/^CNGN_SIGNED_APPROVALS: /);
    expect(rest).toEqual([]);
    expect(problemsOf({ ...SLACK_ENV, CNGN_SIGNED_APPROVALS: 'above:-5' })).toEqual([
      'CNGN_SIGNED_APPROVALS: the amount after above: cannot be negative',
    ]);
  });

  it('stop start-up with one line saying what to set when there is nowhere to sign', () => {
    for (const rule of ['all', 'above:1000000']) {
      expect(problemsOf({ ...SLACK_ENV, CNGN_SIGNED_APPROVALS: rule })).toEqual([
        "CNGN_SIGNING_URL: required with CNGN_SIGNED_APPROVALS — the https:// address where approvers' browsers reach the bot's HTTP port (its host is the passkeys' relying party; http://localhost:<port> for a trial on this machine), or set PUBLIC_URL",
      ]);
    }
    // A plain http PUBLIC_URL is its own one problem, not a second line about signing.
    expect(
      problemsOf({ ...SLACK_ENV, CNGN_SIGNED_APPROVALS: 'all', PUBLIC_URL: 'http://desk.example.com' }),
    ).toEqual(['PUBLIC_URL: must be an https:// origin (the service calls it back)']);
  });
});
