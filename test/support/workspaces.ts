// Requests as Slack sends them for a given workspace: the team the request names, the acting user's
// team and, on Enterprise Grid, the organisation. The default is the bot's own (T1, no Grid), as the
// other helpers in slack-requests.ts send; a test sets another to play a Slack Connect member or a
// body naming another workspace for someone of this one.
import {
  interaction,
  newTriggerId,
  postSigned,
  type SlackResponse,
  type SlackSender,
  slashCommandBody,
} from './slack-requests.js';

export interface Workspace {
  /** `team.id` / `team_id` (default T1). */
  team?: string;
  /** The acting user's `team_id` (default: `team`). */
  userTeam?: string;
  /** `enterprise.id` / `enterprise_id` (default none: not Grid). */
  enterprise?: string;
}

const teamOf = (place: Workspace) => place.team ?? 'T1';

/** The fields an interaction payload carries for `place`. */
function interactionPlace(user: string, place: Workspace) {
  return {
    team: { id: teamOf(place), domain: 'somewhere' },
    user: { id: user, username: 'someone', team_id: place.userTeam ?? teamOf(place) },
    enterprise: place.enterprise ? { id: place.enterprise, name: 'Some org' } : null,
    is_enterprise_install: false,
  };
}

/** `/cngn <text>` from `user`, sent for `place`. */
export function commandFrom(
  sender: SlackSender,
  place: Workspace,
  options: { text: string; user: string; responseUrl: string; triggerId?: string },
): Promise<SlackResponse> {
  const form = new URLSearchParams(
    slashCommandBody({
      text: options.text,
      userId: options.user,
      responseUrl: options.responseUrl,
      ...(options.triggerId ? { triggerId: options.triggerId } : {}),
    }),
  );
  form.set('team_id', teamOf(place));
  if (place.enterprise) form.set('enterprise_id', place.enterprise);
  return postSigned(sender, form.toString());
}

/** A button click by `user` on a message in `channel`, sent for `place`. */
export function clickFrom(
  sender: SlackSender,
  place: Workspace,
  options: { actionId: string; value: string; user: string; channel: string; triggerId?: string },
): Promise<SlackResponse> {
  return interaction(sender, {
    type: 'block_actions',
    ...interactionPlace(options.user, place),
    api_app_id: 'A1',
    trigger_id: options.triggerId ?? newTriggerId(),
    channel: { id: options.channel, name: 'approvals' },
    container: { type: 'message', message_ts: '1.0', channel_id: options.channel, is_ephemeral: false },
    message: { ts: '1.0', type: 'message' },
    actions: [
      {
        action_id: options.actionId,
        block_id: 'block',
        type: 'button',
        value: options.value,
        action_ts: '1.1',
      },
    ],
  });
}

/** A modal submitted by `user`, sent for `place`. */
export function submissionFrom(
  sender: SlackSender,
  place: Workspace,
  options: {
    user: string;
    callbackId: string;
    viewId?: string;
    privateMetadata?: string;
    values?: Record<string, Record<string, Record<string, unknown>>>;
  },
): Promise<SlackResponse> {
  return interaction(sender, {
    type: 'view_submission',
    ...interactionPlace(options.user, place),
    api_app_id: 'A1',
    trigger_id: newTriggerId(),
    view: {
      id: options.viewId ?? `V${Math.random().toString(36).slice(2)}`,
      type: 'modal',
      callback_id: options.callbackId,
      private_metadata: options.privateMetadata ?? '',
      hash: 'h',
      state: { values: options.values ?? {} },
    },
  });
}

/** A type-ahead (block_suggestion) by `user`, sent for `place`. */
export function typeAheadFrom(
  sender: SlackSender,
  place: Workspace,
  options: { user: string; actionId: string; value: string },
): Promise<SlackResponse> {
  return interaction(sender, {
    type: 'block_suggestion',
    ...interactionPlace(options.user, place),
    api_app_id: 'A1',
    action_id: options.actionId,
    block_id: options.actionId,
    value: options.value,
  });
}

/** An Events API delivery of `event`, sent for `place`. */
export function eventFrom(
  sender: SlackSender,
  place: Workspace,
  event: Record<string, unknown>,
): Promise<SlackResponse> {
  const body = JSON.stringify({
    token: 'legacy-unused',
    team_id: teamOf(place),
    ...(place.enterprise ? { enterprise_id: place.enterprise } : {}),
    api_app_id: 'A1',
    type: 'event_callback',
    event_id: `Ev${Math.random().toString(36).slice(2)}`,
    event_time: Math.floor(Date.now() / 1000),
    event: { ...event, event_ts: String(Date.now() / 1000) },
  });
  return postSigned(sender, body, { contentType: 'application/json' });
}
