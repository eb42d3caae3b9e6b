// What a /cngn subcommand declares to the command registry: its line in the help, the role it needs
// (the access gate checks it before the handler runs), the feature it needs when that feature may be
// left unconfigured, and the handler that answers.
import type { KnownBlock } from '@slack/types';
import type { WebClient } from '@slack/web-api';
import type { Need } from '../access/index.js';

/** A message as the bot sends it: the fallback text and its blocks. */
export interface SlackMessage {
  text: string;
  blocks: KnownBlock[];
}

/**
 * Who may use a subcommand, button, form or type-ahead: a role, or `anyone` (any member who is not a
 * guest or a bot). The help puts the role before the summary ("approvers: …"), except for anyone and
 * readers, whom every line is for.
 */
export type Who = 'anyone' | Need;

export const READERS: Need = { role: 'reader' };
export const REQUESTERS: Need = { role: 'requester' };
export const AUDITORS: Need = { role: 'auditor' };
/** What only an approver in their own right does (freeze, unfreeze, resolve by hand): never a delegate. */
export const APPROVERS: Need = { role: 'approver' };
/**
 * Deciding on requests (approve, reject, review): approvers, and delegates while a delegation of theirs
 * is on the books; which requests each may decide is the engine's check.
 */
export const DECIDERS: Need = { role: 'approver', delegates: true };

/** One line of `/cngn help`. */
export interface HelpEntry {
  usage: string;
  /** What it does, in one line, without whom it is for (that is `who`). */
  summary: string;
  /** Unset: anyone. */
  who?: Who | undefined;
  /** One line to copy, without the leading `/cngn `. */
  example: string;
}

/** What a handler gets: the words after the subcommand's name, who asked, where, and a private reply. */
export interface CommandContext {
  args: string[];
  userId: string;
  channelId: string;
  triggerId: string;
  client: WebClient;
  /** Answer privately through the command's response_url. */
  respond(message: SlackMessage): Promise<void>;
}

/** A feature a deployment may leave out; a subcommand needing it then answers that it is not configured. */
export type Feature = 'approvals' | 'policy' | 'deadLetters';

export interface Subcommand<D> extends HelpEntry {
  /** The word after `/cngn`, or two words for a sub-word (`audit verify`, `whitelist add`). */
  name: string;
  who: Who;
  /** Left out of the help because another entry's line shows it (whitelist's `[add]`). */
  inHelp?: false;
  /** The answer to send privately, or undefined when the handler answered itself (a modal). */
  run(command: CommandContext, deps: D): Promise<SlackMessage | undefined>;
}

/** A subcommand of a feature that may be left out: it runs with that feature's deps, when it is wired. */
export type FeatureSubcommand<F extends Feature, D> = Subcommand<D> & { needs: F };
