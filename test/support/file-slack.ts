// One fake Slack for a whole test file: the files that start the bot (in-process or as a process of
// its own) point it at `slack`, started by the file's first test that names it and stopped after the
// file's last test. A test that sets answers (`slack.on`) calls `slack.reset()` first, and again when
// it ends (`defer`), so the file's other tests meet a Slack that answers as usual.
import { FakeSlack } from './fake-slack.js';
import { test } from './fixtures.js';

/** `test` (fixtures.ts) plus `slack`, one FakeSlack per file. */
export const slackTest = test
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads what a fixture needs from this pattern.
  .extend('slack', { scope: 'file' }, async ({}, { onCleanup }) => {
    const slack = await FakeSlack.start();
    onCleanup(() => slack.stop());
    return slack;
  });
