// Listeners by plain id are matched from one table per kind: Bolt itself matches a handful, whatever
// the number of features, and each id still reaches its own listeners (all of them), and only them.
import type { App } from '@slack/bolt';
import { describe, expect } from 'vitest';
import { createLogger } from '../../../src/log.js';
import type { SlackApp, SlackAppOptions } from '../../../src/slack/runtime/app.js';
import type { FakeSlack } from '../../support/fake-slack.js';
import { httpAppOptions, slackAppTest as test } from '../../support/slack-app.js';
import { blockAction, eventDelivery, viewSubmission } from '../../support/slack-requests.js';

const SIGNING_SECRET = 'listener-index-signing-secret';

/**
 * An app whose features register `count` action, view and event listeners; what each one saw. After
 * them, a global middleware that stops the action `a.stopped` (as the access gate stops a refusal).
 */
async function appWith(
  {
    slack,
    startSlackApp,
  }: { slack: FakeSlack; startSlackApp: (options: SlackAppOptions) => Promise<SlackApp> },
  count: number,
) {
  const seen: string[] = [];
  const app = await startSlackApp(
    httpAppOptions(slack, SIGNING_SECRET, {
      logger: createLogger('silent'),
      plugins: [
        (bolt) => {
          for (let i = 0; i < count; i++) {
            bolt.action(`a.${i}`, async ({ ack }) => {
              await ack();
              seen.push(`action a.${i}`);
            });
            bolt.view(`v.${i}`, async ({ ack }) => {
              await ack();
              seen.push(`view v.${i}`);
            });
            bolt.event(`e_${i}`, async () => {
              seen.push(`event e_${i}`);
            });
          }
          // A second listener of one id runs too, as Bolt would run both.
          bolt.action('a.0', async () => {
            seen.push('action a.0 again');
          });
          bolt.action('a.stopped', async () => {
            seen.push('action a.stopped');
          });
          bolt.use(async (args) => {
            const action = 'action' in args ? (args.action as { action_id?: string }) : undefined;
            if (action?.action_id !== 'a.stopped') return args.next();
            seen.push('stopped');
            await args.ack?.();
          });
        },
      ],
    }),
  );
  const sender = { baseUrl: app.url, signingSecret: SIGNING_SECRET };
  return { seen, sender, bolt: app.app as App };
}

describe('listeners by plain id', () => {
  test('leave Bolt a handful of listeners to match, however many features register', async ({
    slack,
    startSlackApp,
  }) => {
    const { bolt } = await appWith({ slack, startSlackApp }, 20);
    const { listeners, middleware } = bolt as unknown as { listeners: unknown[]; middleware: unknown[] };
    // None: one global middleware finds them all (the removal events' too), not 61 listeners.
    expect(listeners).toHaveLength(0);
    expect(middleware.length).toBeLessThanOrEqual(3);
  });

  test('reach the listeners of their own id, all of them, and no other', async ({ slack, startSlackApp }) => {
    const { seen, sender } = await appWith({ slack, startSlackApp }, 3);
    expect((await blockAction(sender, { actionId: 'a.0' })).status).toBe(200);
    expect((await blockAction(sender, { actionId: 'a.2' })).status).toBe(200);
    expect((await viewSubmission(sender, { callbackId: 'v.1', values: {} })).status).toBe(200);
    expect((await eventDelivery(sender, { type: 'e_2' })).status).toBe(200);
    await expect.poll(() => seen.length).toBe(5);
    expect([...seen].sort()).toEqual([
      'action a.0',
      'action a.0 again',
      'action a.2',
      'event e_2',
      'view v.1',
    ]);
  });

  test('run only after every global middleware, even one registered after them', async ({
    slack,
    startSlackApp,
  }) => {
    const { seen, sender } = await appWith({ slack, startSlackApp }, 1);
    expect((await blockAction(sender, { actionId: 'a.stopped' })).status).toBe(200);
    await expect.poll(() => seen.length).toBe(1);
    expect((await blockAction(sender, { actionId: 'a.0' })).status).toBe(200);
    await expect.poll(() => seen.length).toBe(3);
    expect(seen).not.toContain('action a.stopped');
  });

  test('refuse a global middleware registered after their dispatch', async ({ slack, startSlackApp }) => {
    const { seen, sender, bolt } = await appWith({ slack, startSlackApp }, 1);
    expect(() => bolt.use(async ({ next }) => next())).toThrow(/before the listener table/);
    // The app goes on as it was: the dispatch is still the last step.
    expect((await blockAction(sender, { actionId: 'a.0' })).status).toBe(200);
    await expect.poll(() => seen.length).toBe(2);
    expect([...seen].sort()).toEqual(['action a.0', 'action a.0 again']);
  });
});
