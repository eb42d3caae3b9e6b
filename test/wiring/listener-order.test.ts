// Bolt runs listeners in the order they were registered: the gate goes in front of every other one,
// and the tx page buttons come right after /cngn. This pins the order the bot registers them in.
import { afterEach, expect, test, vi } from 'vitest';
import { type ApprovalApp, startApprovalApp } from '../slack/approvals/support.js';

const order = vi.hoisted(() => [] as string[]);

/** The module with `name` wrapped so that each call is noted, then made as before. */
function noting<T extends Record<string, unknown>>(module: T, name: keyof T & string, label: string): T {
  const original = module[name] as (...args: unknown[]) => unknown;
  return {
    ...module,
    [name]: (...args: unknown[]) => {
      order.push(label);
      return original(...args);
    },
  };
}

vi.mock('../../src/slack/gate/gate.js', async (load) => noting(await load(), 'registerGate', 'gate'));
vi.mock('../../src/slack/commands/router.js', async (load) =>
  noting(await load(), 'registerCommands', 'commands'),
);
vi.mock('../../src/slack/reads/tx-pages.js', async (load) =>
  noting(await load(), 'registerTxPages', 'tx pages'),
);
vi.mock('../../src/slack/deposits/views.js', async (load) =>
  noting(await load(), 'registerDepositQuoteViews', 'deposit views'),
);
vi.mock('../../src/slack/alerts/dead-letter-actions.js', async (load) =>
  noting(await load(), 'registerDeadLetterActions', 'dead letters'),
);
vi.mock('../../src/slack/approvals/register.js', async (load) =>
  noting(await load(), 'registerApprovals', 'approvals'),
);
vi.mock('../../src/slack/approvals/home/register.js', async (load) =>
  noting(await load(), 'registerHome', 'home'),
);
vi.mock('../../src/slack/approvals/reminders.js', async (load) =>
  noting(await load(), 'registerApprovalReminders', 'reminders'),
);
vi.mock('../../src/slack/approvals/group-changes.js', async (load) =>
  noting(await load(), 'registerGroupChanges', 'group changes'),
);

let app: ApprovalApp | undefined;
afterEach(async () => {
  await app?.stop();
  app = undefined;
});

test('the listeners go in with the gate first and the tx pages right after /cngn', async () => {
  app = await startApprovalApp();
  expect(order).toEqual([
    'gate',
    'commands',
    'tx pages',
    'deposit views',
    'dead letters',
    'approvals',
    'home',
    'reminders',
    'group changes',
  ]);
});
