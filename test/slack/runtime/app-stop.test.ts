// Stopping the app in HTTP mode ends connections that never sent a byte: a browser preconnects to the
// passkey pages, and Node's close waited for such a connection for minutes (neither idle nor busy).
import { once } from 'node:events';
import { connect } from 'node:net';
import { expect } from 'vitest';
import { createLogger } from '../../../src/log.js';
import { createSlackApp } from '../../../src/slack/runtime/app.js';
import { SIGNING_SECRET } from '../../support/harness.js';
import { httpAppOptions, slackAppTest as test } from '../../support/slack-app.js';

test('stops while a connection that never sent a byte is open, and ends it', async ({ slack }) => {
  const app = createSlackApp(
    httpAppOptions(slack, SIGNING_SECRET, {
      logger: createLogger('warn', { write: () => undefined }),
      logLevel: 'warn',
    }),
  );
  await app.start();
  const preconnect = connect(Number(new URL(app.url).port), '127.0.0.1');
  await once(preconnect, 'connect');
  const ended = once(preconnect, 'close');
  await app.stop();
  await ended;
  expect(preconnect.bytesWritten).toBe(0);
});
