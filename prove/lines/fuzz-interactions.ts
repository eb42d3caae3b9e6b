// Button clicks (block_actions) and type-ahead (block_suggestion) drawn from every workspace, declared
// ids and undeclared ones, through the bot: each naming another team, user team or organisation is
// acked and refused, and nothing is done for it (the gate checks the workspace before any listener).
import fc from 'fast-check';
import { ACTIONS, OPTIONS } from '../../src/slack/gate/access.js';
import type { SlackCall } from '../../test/support/fake-slack.js';
import { isHomeWorkspace, workspace } from '../../test/support/fuzz-inputs.js';
import { clickFrom, typeAheadFrom } from '../../test/support/workspaces.js';
import { inBatches, type Line } from '../support.js';

type Sender = Parameters<typeof clickFrom>[0];

/** What the gate says to anyone of another workspace. */
const MEMBERS_ONLY = 'Only members of Treasury can use cngn-desk.';

/** Slack reads the refusal may make on its way (where to answer); never a change. */
const READS = /^(users|conversations|auth)\./;

const ids = (declared: readonly { id: unknown }[]) =>
  declared.map((d) => d.id).filter((id): id is string => typeof id === 'string');

/** Ids of one length, so that no one's id is found inside another's (UFZCLICK1 in UFZCLICK12). */
const personId = (prefix: string, i: number) => `${prefix}${String(i).padStart(6, '0')}`;

interface Sent {
  what: string;
  user: string;
  status: number;
  ack: string;
}

/** Draw `n` clicks and `n` type-aheads; send them; `settled` waits until Slack is quiet. */
export async function fuzzForeignInteractions(
  sender: Sender,
  calls: () => SlackCall[],
  settled: () => Promise<void>,
  n: number,
  seed: number,
): Promise<Omit<Line, 'seconds'>> {
  const foreign: Sent[] = [];
  const clickIds = fc.oneof(fc.constantFrom(...ids(ACTIONS)), fc.constant('fuzz.undeclared'), fc.string());
  const clicks = fc.sample(fc.tuple(clickIds, fc.string(), workspace), { numRuns: n, seed });
  await inBatches([...clicks.entries()], 8, async ([i, [actionId, value, place]]) => {
    const user = personId('UFZCLICK', i);
    const r = await clickFrom(sender, place, { actionId, value, user, channel: 'CFUZZ' });
    if (!isHomeWorkspace(place))
      foreign.push({ what: `click ${actionId}`, user, status: r.status, ack: r.body });
  });
  const pickerIds = fc.oneof(fc.constantFrom(...ids(OPTIONS)), fc.constant('fuzz.undeclared'));
  const typed = fc.sample(fc.tuple(pickerIds, fc.string(), workspace), { numRuns: n, seed });
  await inBatches([...typed.entries()], 8, async ([i, [actionId, value, place]]) => {
    const user = personId('UFZTYPE', i);
    const r = await typeAheadFrom(sender, place, { actionId, value, user });
    if (!isHomeWorkspace(place))
      foreign.push({ what: `type-ahead ${actionId}`, user, status: r.status, ack: r.body });
  });
  await settled();
  const wrong: string[] = [];
  for (const sent of foreign) {
    const acked = sent.ack === '' || sent.ack === JSON.stringify({ options: [] });
    if (sent.status !== 200 || !acked) wrong.push(`${sent.what}: ${sent.status} ${sent.ack.slice(0, 80)}`);
    const done = calls().filter(
      (c) =>
        !READS.test(c.method) &&
        JSON.stringify(c.body).includes(sent.user) &&
        !JSON.stringify(c.body).includes(MEMBERS_ONLY),
    );
    if (done.length > 0) wrong.push(`${sent.what}: ${done.map((c) => c.method).join(', ')}`);
  }
  const ok = wrong.length === 0 && foreign.length > 0;
  return {
    line: 'fuzz: other workspaces (clicks, type-ahead)',
    on: 'memory',
    target:
      'every click and type-ahead naming another team, user team or organisation is refused, nothing run',
    figure: `${foreign.length} drawn from another workspace, ${wrong.length} not refused`,
    status: ok ? 'pass' : 'fail',
    ...(ok
      ? {}
      : {
          note: `${wrong.slice(0, 2).join('; ') || 'none drawn'} (seed ${seed}: PROVE_SEED=${seed} repeats it)`,
        }),
  };
}
