// Nothing the bot listens to is left out of the access table: the whole bot is started with every
// feature, every listener it registers with Bolt is recorded, and each one's id must be declared
// (access.ts for buttons, forms, type-ahead and events; the registry for each /cngn subcommand).
import { App } from '@slack/bolt';
import { afterEach, describe, expect, vi } from 'vitest';
import { DEAD_LETTER_REPOST_ACTION } from '../../../src/slack/alerts/dead-letter-blocks.js';
import { APPROVE_ACTION } from '../../../src/slack/approvals/blocks/message.js';
import { REGISTRY } from '../../../src/slack/commands/registry.js';
import { ACTIONS, declaredWho, type Surface } from '../../../src/slack/gate/access.js';
import { indexedIds } from '../../../src/slack/runtime/listener-index.js';
import { botTest } from '../../support/bot.js';

/**
 * Slack's own notices (the app removed, tokens revoked, a user group's members changed): no person
 * acts, so there is nothing to gate.
 */
const SLACK_LIFECYCLE = ['app_uninstalled', 'tokens_revoked', 'subteam_members_changed'];

type Registered = { surface: Surface | 'command'; id: string | RegExp };

/** The listeners that find plain ids in the listener index (those ids are read from the index). */
const isIndexKind = (constraint: unknown) =>
  (constraint instanceof RegExp && constraint.source === '^') ||
  (typeof constraint === 'object' && constraint !== null && Object.keys(constraint).join() === 'type');

/** The id a Bolt listener is registered with: a string, a pattern, or a constraints object. */
function idOf(constraint: unknown, key: 'action_id' | 'callback_id'): string | RegExp {
  if (typeof constraint === 'string' || constraint instanceof RegExp) return constraint;
  const id = (constraint as Record<string, unknown>)?.[key];
  if (typeof id === 'string' || id instanceof RegExp) return id;
  throw new Error(`a listener registered with no ${key}: ${JSON.stringify(constraint)}`);
}

/** What each app registered with Bolt itself, and the apps (whose listener index holds the plain ids). */
function recordListeners(): { seen: Registered[]; apps: Set<App> } {
  const seen: Registered[] = [];
  const apps = new Set<App>();
  const record = (surface: Registered['surface'], key: 'action_id' | 'callback_id') => (first: unknown) => {
    if (!isIndexKind(first)) seen.push({ surface, id: idOf(first, key) });
  };
  const spy = <M extends 'action' | 'view' | 'options' | 'shortcut' | 'command' | 'event'>(
    method: M,
    onCall: (first: unknown) => void,
  ) => {
    const original = App.prototype[method] as (...args: unknown[]) => unknown;
    vi.spyOn(App.prototype, method).mockImplementation(function (this: App, ...args: unknown[]) {
      apps.add(this);
      onCall(args[0]);
      return original.apply(this, args);
    } as never);
  };
  spy('action', record('action', 'action_id'));
  spy('view', record('view', 'callback_id'));
  spy('options', record('options', 'action_id'));
  spy('shortcut', record('shortcut', 'callback_id'));
  spy('command', (first) => seen.push({ surface: 'command', id: idOf(first, 'callback_id') }));
  spy('event', (first) => {
    if (!isIndexKind(first)) seen.push({ surface: 'event', id: idOf(first, 'callback_id') });
  });
  return { seen, apps };
}

function declared({ surface, id }: Registered): boolean {
  if (surface === 'command') return id === '/cngn';
  if (surface === 'event' && typeof id === 'string' && SLACK_LIFECYCLE.includes(id)) return true;
  if (typeof id === 'string') return declaredWho(surface, id) !== undefined;
  // A family of ids (the transaction list's page buttons) is declared with the same pattern.
  return surface === 'action' && ACTIONS.some((d) => d.id instanceof RegExp && d.id.source === id.source);
}

describe('the access table', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  botTest('declares who may use every id the bot listens to', async ({ startApp }) => {
    const { seen, apps } = recordListeners();
    await startApp({ withWebhooks: true });
    for (const app of apps) for (const { kind, id } of indexedIds(app)) seen.push({ surface: kind, id });
    // The bot was started with every feature: the approval buttons and the dead letters' are there.
    const ids = seen.map((r) => r.id);
    expect(ids).toContain(APPROVE_ACTION);
    expect(ids).toContain(DEAD_LETTER_REPOST_ACTION);
    expect(ids).toContain('app_home_opened');
    expect(seen.filter((r) => !declared(r))).toEqual([]);
  });

  botTest('declares a role or anyone for every /cngn subcommand', () => {
    for (const entry of REGISTRY) {
      const who = entry.who;
      expect(
        who === 'anyone' || ['reader', 'requester', 'auditor', 'approver'].includes(who.role),
        entry.name,
      ).toBe(true);
    }
    // Help, and delegate: a delegate lists or revokes theirs, an approver files one (the engine checks).
    expect(REGISTRY.filter((entry) => entry.who === 'anyone').map((entry) => entry.name)).toEqual([
      'delegate',
      'help',
    ]);
  });

  botTest('finds nothing declared for an id nobody listens to', () => {
    expect(declaredWho('action', 'approval.approve.not')).toBeUndefined();
    expect(declaredWho('action', 'tx.page.next')).toEqual({ role: 'reader' });
  });
});
