// Whether a request comes from the workspace the bot is installed in (auth.test at start-up): every
// team and enterprise id the request carries must be the installation's. A Slack Connect member of a
// shared channel, or a body naming another workspace, is from elsewhere, whoever it says acts.
import type { Home } from '../runtime/people.js';

/** The value, when it is a present object (Slack sends `team: null` outside Grid, say). */
function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
}

/** What the request says its workspace is: the envelope's, the team's, the acting user's, the event's. */
function idsIn(body: Record<string, unknown>): { teams: unknown[]; enterprises: unknown[] } {
  const event = record(body.event);
  const teams = [
    body.team_id,
    record(body.team)?.id,
    record(body.user)?.team_id,
    event?.user_team,
    event?.source_team,
  ];
  const enterprises = [body.enterprise_id, record(body.enterprise)?.id, record(body.user)?.enterprise_id];
  // An empty team is no team of ours; an empty enterprise is a form's way of naming none.
  const present = (v: unknown) => v !== undefined && v !== null;
  return { teams: teams.filter(present), enterprises: enterprises.filter((v) => present(v) && v !== '') };
}

/**
 * True when the request names the home workspace and no other, and, on Enterprise Grid, the home
 * organisation and no other (outside Grid, none). A request naming no workspace at all is not taken
 * as the home one.
 */
export function fromHome(body: unknown, home: Home): boolean {
  const fields = record(body);
  if (!fields) return false;
  const { teams, enterprises } = idsIn(fields);
  if (teams.length === 0 || teams.some((team) => team !== home.teamId)) return false;
  if (home.enterpriseId === undefined) return enterprises.length === 0;
  return enterprises.length > 0 && enterprises.every((enterprise) => enterprise === home.enterpriseId);
}

/** Slack's Events API envelope (event_callback), whatever event it carries. */
export function isEventEnvelope(body: unknown): boolean {
  return record(body)?.type === 'event_callback';
}
