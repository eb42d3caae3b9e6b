// Who an audit entry's actor was when the entry was written: their name and e-mail from the directory
// (Slack), looked up before the entry is hashed, so the chain holds them as of then and a later rename
// changes nothing in it. The directory is outside the bot: its failure or a slow answer never holds a
// step up for long nor fails it; the entry is then written with the id alone.
import type { Logger } from '../log.js';
import type { ActorDirectory, AuditEntry } from './types.js';

/** How long a step waits for the directory before its entry is written with the id alone. */
const ACTOR_LOOKUP_MS = 1_500;

/** A Slack user or Enterprise Grid user id; anything else (no actor: the system, a webhook) is not looked up. */
const SLACK_USER_ID = /^[UW][A-Z0-9]+$/;

export interface ActorLookup {
  directory: ActorDirectory;
  /** Default ACTOR_LOOKUP_MS. */
  timeoutMs?: number | undefined;
  /** Where a lookup that failed or came too late is noted. */
  log?: Partial<Pick<Logger, 'debug'>> | undefined;
}

type Actor = Pick<AuditEntry, 'actor' | 'actorName' | 'actorEmail'>;

/** The draft with its actor's name and e-mail added, or as it was when there is nothing to add. */
export async function withActorDetails<T extends Actor>(
  draft: T,
  lookup: ActorLookup | undefined,
): Promise<T> {
  const id = draft.actor;
  if (!lookup || !id || !SLACK_USER_ID.test(id) || draft.actorName !== undefined) return draft;
  const timeoutMs = lookup.timeoutMs ?? ACTOR_LOOKUP_MS;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), timeoutMs).unref();
  });
  try {
    const details = await Promise.race([lookup.directory(id), late]);
    if (!details) {
      lookup.log?.debug?.(
        'audit entry written with the actor id only: the directory did not answer in time',
        {
          actor: id,
          timeoutMs,
        },
      );
      return draft;
    }
    const name = details.name?.trim();
    const email = details.email?.trim();
    return {
      ...draft,
      ...(name && name !== id ? { actorName: name } : {}),
      ...(email ? { actorEmail: email } : {}),
    };
  } catch (error) {
    lookup.log?.debug?.('audit entry written with the actor id only: the directory lookup failed', {
      actor: id,
      error: error instanceof Error ? error.message : String(error),
    });
    return draft;
  } finally {
    clearTimeout(timer);
  }
}
