// The people the bot meets, as Slack describes them (users.info): their name and e-mail for the
// record, and whether they are a guest, a bot, or not a member of the workspace the bot is installed in
// (a Slack Connect member of a shared channel), who may do nothing here. Answers are kept briefly so
// a burst of clicks asks Slack once per person.
import type { WebClient } from '@slack/web-api';

export interface Person {
  id: string;
  /** Display name, else real name, else the Slack handle. */
  name: string;
  /** Only with the users:read.email scope. */
  email?: string | undefined;
  /** A single- or multi-channel guest (is_restricted / is_ultra_restricted). */
  guest: boolean;
  bot: boolean;
  deleted: boolean;
  /** Not a member of the home workspace: Slack says `is_stranger`, another `team_id`, or (on Grid) another enterprise. */
  external: boolean;
}

/** The workspace the bot is installed in, as auth.test names it at start-up. */
export interface Home {
  teamId: string;
  /** Its name, for "only members of <workspace>". */
  team: string;
  /** On Enterprise Grid, the organisation's id; undefined elsewhere. */
  enterpriseId?: string | undefined;
}

export interface PeopleOptions {
  /** How long an answer is kept (default 5 minutes). */
  ttlMs?: number;
  now?: () => number;
  /** Whose members may act; without it only `is_stranger` marks someone external. */
  home?: Home;
}

const DEFAULT_TTL_MS = 5 * 60_000;

export interface SlackUser {
  id?: string;
  name?: string;
  real_name?: string;
  deleted?: boolean;
  is_bot?: boolean;
  is_restricted?: boolean;
  is_ultra_restricted?: boolean;
  is_stranger?: boolean;
  team_id?: string;
  enterprise_id?: string;
  /** On Grid: the organisation, and the workspaces of it the person belongs to. */
  enterprise_user?: { enterprise_id?: string; teams?: string[] };
  profile?: { display_name?: string; real_name?: string; email?: string; bot_id?: string };
}

/**
 * Whether Slack describes `user` as a member of `home`: never a stranger; the home workspace as their
 * team (or, on Grid, among their workspaces); on Grid, the same organisation. A user object without a
 * team says nothing of membership, so it is not taken as one.
 */
export function memberOf(user: SlackUser, home: Home | undefined): boolean {
  if (user.is_stranger === true) return false;
  if (!home) return true;
  const teams = Array.isArray(user.enterprise_user?.teams) ? user.enterprise_user.teams : [];
  if (user.team_id !== home.teamId && !teams.includes(home.teamId)) return false;
  const enterprise = user.enterprise_user?.enterprise_id ?? user.enterprise_id;
  return home.enterpriseId === undefined ? enterprise === undefined : enterprise === home.enterpriseId;
}

/** A Slack user object as the record needs it; USLACKBOT counts as a bot. */
export function personFrom(id: string, user: SlackUser, home?: Home): Person {
  const name = user.profile?.display_name || user.real_name || user.profile?.real_name || user.name || id;
  return {
    id,
    name,
    email: user.profile?.email || undefined,
    guest: user.is_restricted === true || user.is_ultra_restricted === true,
    bot: user.is_bot === true || Boolean(user.profile?.bot_id) || id === 'USLACKBOT',
    deleted: user.deleted === true,
    external: !memberOf(user, home),
  };
}

/** Why someone may do nothing here whatever the roles or a setting say. */
export type Barred = 'external' | 'bot' | 'guest' | 'deleted';

/** Why someone may do nothing here (not a member of the home workspace, a bot, a guest, deactivated), or undefined. */
export function barred(person: Person): Barred | undefined {
  if (person.external) return 'external';
  if (person.bot) return 'bot';
  if (person.guest) return 'guest';
  if (person.deleted) return 'deleted';
  return undefined;
}

export class People {
  private readonly kept = new Map<string, { person: Promise<Person>; until: number }>();
  private readonly ttlMs: number;
  private readonly now: () => number;
  /** The workspace whose members may act (auth.test at start-up). */
  readonly home: Home | undefined;

  constructor(
    private readonly client: WebClient,
    options: PeopleOptions = {},
  ) {
    this.ttlMs = options.ttlMs ?? DEFAULT_TTL_MS;
    this.now = options.now ?? Date.now;
    this.home = options.home;
  }

  /** The person behind `id`; a Slack error (user_not_found, a network failure) is thrown, not kept. */
  lookup(id: string): Promise<Person> {
    const now = this.now();
    const kept = this.kept.get(id);
    if (kept && kept.until > now) return kept.person;
    const person = this.client.users
      .info({ user: id })
      .then(({ user }) => personFrom(id, user ?? {}, this.home));
    this.kept.set(id, { person, until: now + this.ttlMs });
    person.catch(() => {
      if (this.kept.get(id)?.person === person) this.kept.delete(id);
    });
    return person;
  }

  /** Forget one person (a user_change event) or everyone. */
  forget(id?: string): void {
    if (id === undefined) this.kept.clear();
    else this.kept.delete(id);
  }
}
