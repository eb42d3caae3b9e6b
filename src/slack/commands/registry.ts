import { escapeMrkdwn } from '../../format/mrkdwn.js';
import { DEAD_LETTERS_SUBCOMMAND } from '../alerts/dead-letter-command.js';
import type { DeadLetterSlackDeps } from '../alerts/types.js';
import { BRIDGE_SUBCOMMAND } from '../approvals/commands/bridge.js';
import { EXTEND_SUBCOMMAND } from '../approvals/commands/extend.js';
import { PENDING_SUBCOMMAND } from '../approvals/commands/pending.js';
import { POLICY_SUBCOMMAND, type PolicyFacts } from '../approvals/commands/policy.js';
import { REDEEM_SUBCOMMAND } from '../approvals/commands/redeem.js';
import { RESOLVE_SUBCOMMAND } from '../approvals/commands/resolve.js';
import { SETTLEMENT_SUBCOMMAND } from '../approvals/commands/settlement.js';
import { WHITELIST_ADD_SUBCOMMAND } from '../approvals/commands/whitelist-add.js';
import { WITHDRAW_SUBCOMMAND } from '../approvals/commands/withdraw.js';
import { AUDIT_SUBCOMMANDS } from '../audit/command.js';
import { DELEGATE_SUBCOMMAND } from '../delegation/command.js';
import { DEPOSIT_SUBCOMMANDS } from '../deposits/commands.js';
import { FREEZE_SUBCOMMAND, UNFREEZE_SUBCOMMAND } from '../freeze/command.js';
import { PASSKEY_SUBCOMMAND } from '../passkeys/command.js';
import { READ_SUBCOMMANDS } from '../reads/commands.js';
import { REPORT_SUBCOMMAND } from '../reports/command.js';
import type { ApprovalSlackDeps, FeatureSubcommand, ReadDeps, SlackMessage, Subcommand } from '../types.js';
import { closest } from './did-you-mean.js';
import { helpMessage } from './help.js';

/** An entry of the registry: a read runs with the router's deps; the others with their feature's. */
export type Entry =
  | (Subcommand<ReadDeps> & { needs?: undefined })
  | FeatureSubcommand<'approvals', ApprovalSlackDeps>
  | FeatureSubcommand<'policy', PolicyFacts>
  | FeatureSubcommand<'deadLetters', DeadLetterSlackDeps>;

const HELP: Subcommand<ReadDeps> = {
  name: 'help',
  usage: 'help',
  summary: 'this list',
  who: 'anyone',
  example: 'help',
  run: async () => help(),
};

/** Every /cngn subcommand, in the order a treasury operator needs them (the help's order). */
export const REGISTRY: readonly Entry[] = [
  READ_SUBCOMMANDS.balance,
  READ_SUBCOMMANDS.tx,
  REPORT_SUBCOMMAND,
  DEPOSIT_SUBCOMMANDS.deposit,
  WITHDRAW_SUBCOMMAND,
  REDEEM_SUBCOMMAND,
  DEPOSIT_SUBCOMMANDS.quote,
  BRIDGE_SUBCOMMAND,
  READ_SUBCOMMANDS.accounts,
  READ_SUBCOMMANDS.networks,
  READ_SUBCOMMANDS.banks,
  READ_SUBCOMMANDS.whitelist,
  WHITELIST_ADD_SUBCOMMAND,
  SETTLEMENT_SUBCOMMAND,
  PENDING_SUBCOMMAND,
  EXTEND_SUBCOMMAND,
  DELEGATE_SUBCOMMAND,
  PASSKEY_SUBCOMMAND,
  FREEZE_SUBCOMMAND,
  UNFREEZE_SUBCOMMAND,
  // What the policy shows (approvers, limits used) is the treasury's business: for readers.
  POLICY_SUBCOMMAND,
  AUDIT_SUBCOMMANDS.list,
  AUDIT_SUBCOMMANDS.verify,
  AUDIT_SUBCOMMANDS.archive,
  AUDIT_SUBCOMMANDS.export,
  DEAD_LETTERS_SUBCOMMAND,
  RESOLVE_SUBCOMMAND,
  HELP,
];

/** The entries `/cngn help` shows, one line each, in order. */
export const SUBCOMMANDS: readonly Entry[] = REGISTRY.filter((entry) => entry.inHelp !== false);

/** The entries by name (the first of a name, as the registry's order gives it): looked up twice per command. */
const BY_NAME: ReadonlyMap<string, Entry> = new Map(
  [...REGISTRY].reverse().map((entry) => [entry.name, entry] as const),
);

/**
 * The entry the words name, and the words after its name: two words first (`audit verify`,
 * `whitelist add`), then one. Case does not matter.
 */
export function findSubcommand(words: string[]): { entry: Entry; args: string[] } | undefined {
  const first = words[0]?.toLowerCase() ?? '';
  const second = words[1]?.toLowerCase() ?? '';
  const both = BY_NAME.get(`${first} ${second}`);
  if (both) return { entry: both, args: words.slice(2) };
  const one = BY_NAME.get(first);
  return one ? { entry: one, args: words.slice(1) } : undefined;
}

export function help(word?: string): SlackMessage {
  if (!word) return helpMessage(SUBCOMMANDS);
  const guess = closest(
    word,
    SUBCOMMANDS.map((entry) => entry.name),
  );
  const notice = `I don't know \`${escapeMrkdwn(word)}\`.${guess ? ` Did you mean \`/cngn ${guess}\`?` : ''}`;
  return helpMessage(SUBCOMMANDS, notice);
}
