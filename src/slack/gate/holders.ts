// Whom a refusal names as holding the role: of the people a role's list names, only those Slack
// describes as members who may act here (no guest, bot or deactivated account, as the gate refuses
// them). A form's refusal is its ack, due within Slack's 3 s, so the lookups are bounded: the first
// few named are looked up together, and unless every answer is in within a second (or kept by People
// from before) the refusal names the role alone. The lookups go on, so the next refusal has them.
import type { Holders } from '../../access/index.js';
import { barred, type People } from '../runtime/people.js';
import type { NamedHolders } from './refusals.js';

/** How long a refusal waits for Slack to describe the holders. */
const HOLDERS_WITHIN_MS = 1_000;
/** Looked up for one refusal at most: the eight it names and some to spare for those left out. */
const MAX_CHECKED = 16;

type Verdict = { id: string; name: string } | 'left out' | 'unknown';

async function verdict(id: string, people: People): Promise<Verdict> {
  try {
    const person = await people.lookup(id);
    return barred(person) ? 'left out' : { id, name: person.name };
  } catch (error) {
    const slackError = (error as { data?: { error?: string } } | undefined)?.data?.error;
    return slackError === 'user_not_found' ? 'left out' : 'unknown';
  }
}

/**
 * The holders a refusal may name, with their plain names (a form's field shows no mentions);
 * undefined when Slack did not describe all of them in time. User groups are named as groups.
 */
export async function namedHolders(
  holders: Holders,
  people: People,
  withinMs = HOLDERS_WITHIN_MS,
): Promise<NamedHolders | undefined> {
  if (holders.everyone) return { ...holders, users: [] };
  const checked = holders.users.slice(0, MAX_CHECKED);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), withinMs);
  });
  try {
    const verdicts = await Promise.race([Promise.all(checked.map((id) => verdict(id, people))), late]);
    if (verdicts === 'late' || verdicts.includes('unknown')) return undefined;
    const kept = verdicts.filter((v): v is { id: string; name: string } => typeof v === 'object');
    return {
      everyone: false,
      users: kept.map((person) => person.id),
      groups: holders.groups,
      unchecked: holders.users.length - checked.length,
      names: new Map(kept.map((person) => [person.id, `@${person.name}`])),
    };
  } finally {
    clearTimeout(timer);
  }
}
