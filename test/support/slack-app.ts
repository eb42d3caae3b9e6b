// The Slack app alone (createSlackApp: Bolt, the request guard, the listener tables) on a fake Slack,
// as fixtures (vitest test.extend): `slack`, the test's fake Slack; `startSlackApp(options)`, an app
// started with those options and stopped after the test, before the fake Slack; `httpAppOptions`,
// the options of an app in HTTP mode on that fake Slack.
import { createSlackApp, type SlackApp, type SlackAppOptions } from '../../src/slack/runtime/app.js';
import { FakeSlack } from './fake-slack.js';
import { test } from './fixtures.js';

export const slackAppTest = test
  .extend('slack', async ({ defer }) => {
    const slack = await FakeSlack.start();
    defer(() => slack.stop());
    return slack;
  })
  .extend('startSlackApp', async ({ defer }) => async (options: SlackAppOptions): Promise<SlackApp> => {
    const app = createSlackApp(options);
    defer(() => app.stop());
    await app.start();
    return app;
  });

/** An app in HTTP mode on `slack`, signed with `signingSecret`, on a free port; `rest` is the rest. */
export function httpAppOptions(
  slack: FakeSlack,
  signingSecret: string,
  rest: Omit<SlackAppOptions, 'slack' | 'port'>,
): SlackAppOptions {
  return {
    slack: {
      botToken: 'xoxb-app-test',
      signingSecret,
      appToken: undefined,
      apiUrl: slack.apiUrl,
      mode: 'http',
    },
    port: 0,
    ...rest,
  };
}
