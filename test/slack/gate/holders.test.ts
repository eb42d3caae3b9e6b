// Whom a refusal names as holding a role: the people Slack describes as members who may act here, the
// first sixteen looked up together and the rest counted; nobody at all when Slack has not described
// every one of them in time, since a form's refusal is its ack.
import { WebClient } from '@slack/web-api';
import { expect } from 'vitest';
import { namedHolders } from '../../../src/slack/gate/holders.js';
import { People } from '../../../src/slack/runtime/people.js';
import { BOT_USER, FakeSlack, GUEST } from '../../support/fake-slack.js';
import { test as base } from '../../support/fixtures.js';

const test = base.extend('slack', async ({ defer }) => {
  const slack = await FakeSlack.start();
  defer(() => slack.stop());
  return {
    slack,
    people: new People(
      new WebClient('xoxb-test', { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } }),
    ),
  };
});

const listed = (users: string[]) => ({ everyone: false, users, groups: ['STREASURY'] });

test('leaves out guests, bots, deactivated accounts and IDs Slack does not know', async ({
  slack: { slack, people },
}) => {
  slack.people.set('UADA', { name: 'Ada' });
  slack.on('users.info', (call) => {
    if (call.body.user === 'UGONE') return { body: { ok: true, user: { id: 'UGONE', deleted: true } } };
    if (call.body.user === 'UNOONE') return { body: { ok: false, error: 'user_not_found' } };
    return undefined;
  });
  const named = await namedHolders(listed(['UADA', GUEST, BOT_USER, 'UGONE', 'UNOONE', 'UBOLA']), people);
  expect(named).toEqual({
    everyone: false,
    users: ['UADA', 'UBOLA'],
    groups: ['STREASURY'],
    unchecked: 0,
    names: new Map([
      ['UADA', '@Ada'],
      ['UBOLA', '@UBOLA'],
    ]),
  });
});

test('looks up sixteen at most, counting the rest', async ({ slack: { slack, people } }) => {
  const users = Array.from({ length: 20 }, (_, i) => `UMEMBER${i}`);
  const named = await namedHolders(listed(users), people);
  expect(named?.users).toEqual(users.slice(0, 16));
  expect(named?.unchecked).toBe(4);
  expect(slack.callsTo('users.info')).toHaveLength(16);
});

test('names nobody when one holder is not described in time, and names them once Slack has', async ({
  slack: { slack, people },
}) => {
  const held = slack.hold('users.info');
  const holders = listed(['UADA', 'UBOLA']);
  expect(await namedHolders(holders, people, 20)).toBeUndefined();
  held.release();
  // The lookups went on after the refusal: their answers are kept for the next one.
  await Promise.all(holders.users.map((id) => people.lookup(id)));
  expect((await namedHolders(holders, people, 20))?.users).toEqual(['UADA', 'UBOLA']);
  expect(slack.callsTo('users.info')).toHaveLength(2);
});

test('names nobody when Slack fails to describe one of them', async ({ slack: { slack, people } }) => {
  slack.on('users.info', (call) =>
    call.body.user === 'UBOLA' ? { body: { ok: false, error: 'fatal_error' } } : undefined,
  );
  expect(await namedHolders(listed(['UADA', 'UBOLA']), people)).toBeUndefined();
});
