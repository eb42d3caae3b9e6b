// The access gate: one Bolt global middleware in front of every listener. It reads what arrived (a
// /cngn command, a button in a channel, a DM or App Home, a modal submission, a type-ahead, App Home
// opening), finds who may use it (the registry and access.ts), refuses anyone not of the workspace the
// bot is installed in (the request's team and enterprise, then Slack's word on the person) and guests
// and bots, whatever the role lists say, then asks Roles. A refusal is acked, said privately, logged,
// and nothing runs; an event sent for another workspace goes no further. The people it looks up are
// kept five minutes, forgotten sooner when Slack says an account changed.
import type { AnyMiddlewareArgs, App } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import { z } from 'zod';
import type { Holders, Need, Roles } from '../../access/index.js';
import type { CngnEnvironment } from '../../cngn/api.js';
import type { Logger } from '../../log.js';
import { answerPlace } from '../approvals/actions/click-answer.js';
import { barred, type Home, People } from '../runtime/people.js';
import { firstFormField } from '../runtime/refused-form.js';
import { postToResponseUrl } from '../runtime/response-url.js';
import type { Feature, SlackMessage, Who } from '../types.js';
import { withEnvironment } from '../ui/messages.js';
import { commandWho, declaredWho } from './access.js';
import { namedHolders } from './holders.js';
import { fromHome, isEventEnvelope } from './home.js';
import { noReaderHome, type Refusal, type Refused, refusalFieldText, refusalMessage } from './refusals.js';
import { type AccountChanged, registerUserChanges } from './user-changes.js';

export interface GateDeps {
  roles: Roles;
  /** The environment every answer is marked with (SANDBOX, LIVE). */
  environment: CngnEnvironment;
  /** The features wired here: a subcommand of another one only says it is not configured. */
  features: ReadonlySet<Feature>;
  logger: Pick<Logger, 'warn' | 'debug'>;
  /** The workspace whose members alone may act (auth.test at start-up, read once). */
  home: Home;
  /** One directory per app (with the same home); built from the app's client when absent. */
  people?: People;
  /** Told when Slack says someone's account changed or someone joined (their delegations are vetted). */
  accountChanged?: AccountChanged;
}

/** Where a request came from, as the log line and the refusal's delivery need it. */
type Arrival =
  | { surface: 'command'; id: string; user: string; who: Who; responseUrl: string }
  | {
      surface: 'channel button' | 'DM button' | 'Home button' | 'modal button';
      id: string;
      user: string;
      who: Who;
      channel?: string;
      /** A message's button carries one: the answer goes under it, even where the bot is no member. */
      responseUrl?: string;
    }
  | { surface: 'modal submission'; id: string; user: string; who: Who; field?: string }
  | { surface: 'modal closed' | 'type-ahead' | 'shortcut' | 'Home'; id: string; user: string; who: Who };

const user = z.object({ id: z.string() });
const commandSchema = z.object({
  command: z.string(),
  text: z.string().default(''),
  user_id: z.string(),
  response_url: z.string(),
});
const actionSchema = z.object({
  type: z.literal('block_actions'),
  user,
  actions: z.array(z.object({ action_id: z.string() })).min(1),
  // Everything but who and what is read leniently (absent, null, a container without its type): a click
  // the gate cannot read is refused, so it must read every click a listener would take.
  channel: z.object({ id: z.string() }).nullish(),
  response_url: z.string().nullish(),
  container: z.object({ type: z.string().nullish(), channel_id: z.string().nullish() }).nullish(),
  view: z.object({ type: z.string().nullish() }).nullish(),
});
const viewSchema = z.object({
  type: z.enum(['view_submission', 'view_closed']),
  user,
  view: z.object({
    callback_id: z.string(),
    state: z.object({ values: z.record(z.string(), z.unknown()) }).nullish(),
  }),
});
const optionsSchema = z.object({ type: z.literal('block_suggestion'), user, action_id: z.string() });
const shortcutSchema = z.object({
  type: z.enum(['shortcut', 'message_action']),
  user,
  callback_id: z.string(),
});
const homeSchema = z.object({
  type: z.literal('event_callback'),
  event: z.object({ type: z.literal('app_home_opened'), user: z.string(), tab: z.string().optional() }),
});

/** What arrived and who may use it; undefined for what the gate lets by (Slack's own events). */
function arrival(body: unknown, features: ReadonlySet<Feature>): Arrival | 'undeclared' | undefined {
  return (
    commandArrival(body, features) ??
    actionArrival(body) ??
    viewArrival(body) ??
    optionsArrival(body) ??
    shortcutArrival(body) ??
    homeArrival(body)
  );
}

/** Each reader below: the arrival, 'undeclared', or undefined for a body of another shape. */
type Read = Arrival | 'undeclared' | undefined;

function commandArrival(body: unknown, features: ReadonlySet<Feature>): Read {
  const command = commandSchema.safeParse(body);
  if (!command.success) return undefined;
  const { name, who } = commandWho(command.data.text, features);
  const id = `${command.data.command} ${name}`;
  return {
    surface: 'command',
    id,
    user: command.data.user_id,
    who,
    responseUrl: command.data.response_url,
  };
}

function actionArrival(body: unknown): Read {
  const action = actionSchema.safeParse(body);
  if (!action.success) return undefined;
  const { actions, container, view } = action.data;
  const id = actions[0]?.action_id ?? '';
  const who = declaredWho('action', id);
  if (!who) return 'undeclared';
  const channel = action.data.channel?.id ?? container?.channel_id;
  const surface =
    container?.type === 'view' || (!channel && view)
      ? view?.type === 'home'
        ? 'Home button'
        : 'modal button'
      : channel?.startsWith('D')
        ? 'DM button'
        : 'channel button';
  const responseUrl = action.data.response_url;
  return {
    surface,
    id,
    user: action.data.user.id,
    who,
    ...(channel ? { channel } : {}),
    ...(responseUrl ? { responseUrl } : {}),
  };
}

function viewArrival(body: unknown): Read {
  const view = viewSchema.safeParse(body);
  if (!view.success) return undefined;
  const id = view.data.view.callback_id;
  const who = declaredWho('view', id);
  if (!who) return 'undeclared';
  // The raw view: the schema keeps no blocks, and the field is the first input block on screen.
  const field = firstFormField((body as { view: unknown }).view);
  return view.data.type === 'view_closed'
    ? { surface: 'modal closed', id, user: view.data.user.id, who }
    : { surface: 'modal submission', id, user: view.data.user.id, who, ...(field ? { field } : {}) };
}

function optionsArrival(body: unknown): Read {
  const options = optionsSchema.safeParse(body);
  if (!options.success) return undefined;
  const who = declaredWho('options', options.data.action_id);
  return who
    ? { surface: 'type-ahead', id: options.data.action_id, user: options.data.user.id, who }
    : 'undeclared';
}

function shortcutArrival(body: unknown): Read {
  const shortcut = shortcutSchema.safeParse(body);
  if (!shortcut.success) return undefined;
  const id = shortcut.data.callback_id;
  const who = declaredWho('shortcut', id);
  return who ? { surface: 'shortcut', id, user: shortcut.data.user.id, who } : 'undeclared';
}

function homeArrival(body: unknown): Read {
  const home = homeSchema.safeParse(body);
  if (!home.success || (home.data.event.tab ?? 'home') !== 'home') return undefined;
  const who = declaredWho('event', 'app_home_opened');
  return who ? { surface: 'Home', id: 'app_home_opened', user: home.data.event.user, who } : 'undeclared';
}

/**
 * Why the gate said no, with a role's holders as listed: not yet checked to be nameable. `claimed`: the
 * request itself names another workspace, so whom it names as acting is not to be trusted.
 */
type Judged =
  | Exclude<Refusal, { why: 'role' }>
  | { why: 'role'; need: Need; listed: Holders }
  | { why: 'external'; workspace: string; claimed: true };

type Deps = Required<Omit<GateDeps, 'accountChanged'>>;

/**
 * Undefined when `user` may go on; otherwise why not. Another workspace, guests and bots first: no
 * list lets them in. The workspace is checked from the request itself and the person as already kept.
 */
async function judge(body: unknown, user: string, who: Who, deps: Deps): Promise<Judged | undefined> {
  const workspace = deps.home.team;
  if (!fromHome(body, deps.home)) return { why: 'external', workspace, claimed: true };
  try {
    const why = barred(await deps.people.lookup(user));
    if (why === 'external') return { why, workspace };
    if (why) return { why };
    if (who === 'anyone' || (await deps.roles.holds(user, who))) return undefined;
    return { why: 'role', need: who, listed: await deps.roles.holders(who) };
  } catch (error) {
    // Slack or a user group's members could not be read: nobody is let in on a guess.
    deps.logger.warn('the access gate could not check the person: refused', { user, error: String(error) });
    return { why: 'unchecked' };
  }
}

/** The refusal as said: a role's holders are those Slack describes as members (bounded: holders.ts). */
async function said(judged: Judged, people: People): Promise<Refusal> {
  if (judged.why === 'external') return { why: 'external', workspace: judged.workspace };
  if (judged.why !== 'role') return judged;
  return { why: 'role', need: judged.need, holders: await namedHolders(judged.listed, people) };
}

type Ack = (answer?: unknown) => Promise<void>;

/** Ack and answer privately, as each surface allows; nothing else happens. */
async function refuse(
  arrived: Arrival,
  judged: Judged,
  ack: Ack | undefined,
  client: WebClient,
  deps: Deps,
): Promise<void> {
  // Where the ack comes first, the holders are looked up after it; a form's ack carries them.
  const refusal = () => said(judged, deps.people);
  const marked = async (refused: Refused) =>
    withEnvironment(refusalMessage(refused, await refusal()), deps.environment);
  // Only the person sees it: in the channel of the click, else in their DM with the app.
  const privately = async (message: SlackMessage, channel?: string) => {
    const place = await answerPlace(client, { channel, user: arrived.user });
    if (place.channel)
      await client.chat.postEphemeral({ channel: place.channel, user: arrived.user, ...message });
    else await client.chat.postMessage({ channel: arrived.user, ...message });
  };
  switch (arrived.surface) {
    case 'command':
      await ack?.();
      return postToResponseUrl(arrived.responseUrl, {
        response_type: 'ephemeral',
        ...(await marked({ command: arrived.id.replace(/^\S+\s/, '') })),
      });
    case 'channel button':
    case 'DM button':
      await ack?.();
      if (arrived.responseUrl) {
        return postToResponseUrl(arrived.responseUrl, {
          response_type: 'ephemeral',
          replace_original: false,
          ...(await marked('button')),
        });
      }
      return privately(await marked('button'), arrived.channel);
    case 'Home button':
    case 'modal button':
      await ack?.();
      return privately(await marked('button'));
    case 'modal submission':
      // On the form's first field, where the person is looking; the form stays open, nothing is filed.
      if (arrived.field) {
        const text = refusalFieldText(await refusal());
        return ack?.({ response_action: 'errors', errors: { [arrived.field]: text } });
      }
      await ack?.({ response_action: 'clear' });
      return privately(await marked('form'));
    case 'type-ahead':
      return ack?.({ options: [] });
    case 'shortcut':
      await ack?.();
      return privately(await marked('shortcut'));
    case 'modal closed':
      return ack?.();
    case 'Home':
      // Whose Home it would be is not known when the request names another workspace.
      if ('claimed' in judged) return;
      await client.views.publish({ user_id: arrived.user, view: noReaderHome(await refusal()) });
      return;
  }
}

const needText = (who: Who) => (who === 'anyone' ? 'anyone' : `${who.role}${who.kind ? `:${who.kind}` : ''}`);

/** Put the gate in front of every listener of `app`, and keep its directory of people current. */
export function registerGate(app: App, gateDeps: GateDeps): void {
  const { accountChanged, ...rest } = gateDeps;
  const people = gateDeps.people ?? new People(app.client, { home: gateDeps.home });
  const deps: Deps = { ...rest, people };
  registerUserChanges(app, deps.people, { log: deps.logger, ...(accountChanged ? { accountChanged } : {}) });
  app.use(gate(deps));
}

type GateArgs = AnyMiddlewareArgs & { next: () => Promise<void>; client: WebClient };

/** The gate itself: what nobody must be refused goes by; a declared arrival is judged against who may use it. */
function gate(deps: Deps): (args: GateArgs) => Promise<void> {
  return async (args) => {
    const arrived = arrival(args.body, deps.features);
    if (arrived === undefined || arrived === 'undeclared') return undeclared(args, arrived, deps);
    const refusal = await judge(args.body, arrived.user, arrived.who, deps);
    if (!refusal) return args.next();
    deps.logger.warn('the access gate refused', {
      user: arrived.user,
      surface: arrived.surface,
      id: arrived.id,
      need: needText(arrived.who),
      why: refusal.why,
    });
    const ack = 'ack' in args ? (args.ack as Ack) : undefined;
    await refuse(arrived, refusal, ack, args.client, deps);
  };
}

/**
 * What no declaration covers: Slack's events and an id nobody declared are let by, if from the home
 * workspace; an interaction of a shape the gate cannot read is refused.
 */
async function undeclared(args: GateArgs, arrived: 'undeclared' | undefined, deps: Deps): Promise<void> {
  if (arrived === undefined && isEventEnvelope(args.body)) {
    // Slack's events are no person acting, but one sent for another workspace is not the bot's.
    if (!fromHome(args.body, deps.home)) {
      deps.logger.warn('the access gate refused an event from another workspace', { why: 'external' });
      return;
    }
    return args.next();
  }
  // Fail closed: whatever its shape or id, a body naming no workspace or another goes no further.
  if (!fromHome(args.body, deps.home)) {
    deps.logger.warn('the access gate refused an interaction from another workspace', { why: 'external' });
    const ack = 'ack' in args ? (args.ack as Ack) : undefined;
    return ack?.();
  }
  if (arrived === undefined) {
    // Fail closed: a person's interaction whose shape the gate cannot read is not judged, so it goes no further.
    deps.logger.warn('the access gate refused an interaction it cannot read', { why: 'unreadable' });
    const ack = 'ack' in args ? (args.ack as Ack) : undefined;
    return ack?.();
  }
  // Nothing listens to an id nobody declared (a test checks every listener is declared).
  deps.logger.debug('an interaction nothing declares went by the access gate');
  return args.next();
}
