// The store's health answer (/readyz) says why the store failed, never with the user and password of
// a URL in its error, even a password written unencoded with a `/` or an `@` in it.
import { describe, expect, it } from 'vitest';
import { storeHealth } from '../../src/store/deadline.js';

/** A store whose ping fails with `message`. */
const failing = (message: string) => ({
  kind: 'redis',
  ping: () => Promise.reject(new Error(message)),
});

describe('the store health answer', () => {
  it.for([
    ['a plain password', 'redis://desk:s3cretpass@cache:6379', 's3cretpass'],
    ['a password with a /', 'redis://desk:pa/ss-word@cache:6379', 'ss-word'],
    ['a password with an @', 'redis://desk:p@ss-word@cache:6379', 'ss-word'],
  ])('leaves out %s', async ([, url, secret]) => {
    const health = await storeHealth(failing(`connect ECONNREFUSED ${url}`));
    expect(health.ok).toBe(false);
    const reason = health.ok ? '' : health.reason;
    expect(reason).toMatch(/^the store \(redis\) failed: connect ECONNREFUSED redis:\/\//);
    expect(reason).toContain('cache:6379');
    expect(reason).not.toContain(secret);
    expect(reason).not.toContain('desk:');
  });
});
