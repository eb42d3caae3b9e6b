import { describe, expect, it } from 'vitest';
import { createLogger } from '../src/log.js';

describe('logger', () => {
  it('never writes secrets, whether in fields, in text or as configured values', () => {
    const lines: string[] = [];
    const log = createLogger('debug', { secrets: ['my-encryption-key'], write: (l) => lines.push(l) });
    log.info('calling with Bearer cngn_live_abcdef and xoxb-1-2-3', {
      apiKey: 'cngn_test_zzz',
      nested: { signingSecret: 'x', note: 'uses my-encryption-key' },
      error: new Error('failed for cngn_test_qqq'),
    });
    const out = lines.join('\n');
    for (const secret of [
      'cngn_live_abcdef',
      'xoxb-1-2-3',
      'cngn_test_zzz',
      'my-encryption-key',
      'cngn_test_qqq',
    ]) {
      expect(out).not.toContain(secret);
    }
    expect(out).toContain('[redacted]');
  });

  it('never writes what lies deeper than it walks (Bolt hands over nested objects)', () => {
    const lines: string[] = [];
    const log = createLogger('debug', { write: (l) => lines.push(l) });
    log.warn('deep', {
      original: { config: { request: { options: { headers: { Authorisation: 'Bearer xoxb-9-9-deep' } } } } },
    });
    expect(lines.join('\n')).not.toContain('xoxb-9-9-deep');
    expect(lines.join('\n')).toContain('[truncated]');
  });

  it('writes nothing below its level', () => {
    const lines: string[] = [];
    const log = createLogger('warn', { write: (l) => lines.push(l) });
    log.info('quiet');
    log.warn('loud');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] ?? '{}')).toMatchObject({ level: 'warn', message: 'loud' });
  });
});
