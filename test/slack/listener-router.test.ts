// Plain-id listeners reach Bolt as one listener per kind, which finds the handler by id; anything else
// reaches Bolt as it came. Bolt's own matching is tested end to end by the command, click and modal tests.
import type { App } from '@slack/bolt';
import { describe, expect, it } from 'vitest';
import { foldListeners } from '../../src/slack/runtime/listener-router.js';

type Registered = { kind: string; constraint: unknown; listeners: Array<(args: unknown) => unknown> };

function recordingApp(): { app: App; registered: Registered[] } {
  const registered: Registered[] = [];
  const record =
    (kind: string) =>
    (constraint: unknown, ...listeners: Array<(args: unknown) => unknown>) =>
      registered.push({ kind, constraint, listeners });
  const app = {
    action: record('action'),
    view: record('view'),
    options: record('options'),
    command: record('command'),
  };
  return { app: app as unknown as App, registered };
}

describe('listener router', () => {
  it('binds plain ids as one listener per kind whose pattern matches exactly those ids', async () => {
    const { app, registered } = recordingApp();
    const folded = foldListeners(app);
    const seen: string[] = [];
    folded.app.action('approval.approve', async () => void seen.push('approve'));
    folded.app.action('a.b+c', async () => void seen.push('odd id'));
    folded.app.view('withdraw.submit', async () => void seen.push('withdraw view'));
    folded.app.options('redeem.bank', async () => void seen.push('bank options'));
    expect(registered).toEqual([]);
    folded.bind();
    expect(registered.map((r) => r.kind)).toEqual(['action', 'view', 'options']);
    const [action, view, options] = registered;
    const pattern = action?.constraint as RegExp;
    expect(['approval.approve', 'a.b+c'].every((id) => pattern.test(id))).toBe(true);
    expect(
      ['approval.approveX', 'approvalXapprove', 'a.bbc', 'xapproval.approve'].some((id) => pattern.test(id)),
    ).toBe(false);
    await action?.listeners[0]?.({ payload: { action_id: 'a.b+c' } });
    await view?.listeners[0]?.({ body: { view: { callback_id: 'withdraw.submit' } } });
    await options?.listeners[0]?.({ payload: { action_id: 'redeem.bank' } });
    await action?.listeners[0]?.({ payload: { action_id: 'approval.approve' } });
    expect(seen).toEqual(['odd id', 'withdraw view', 'bank options', 'approve']);
  });

  it('passes a RegExp, a duplicate id, several listeners and other kinds to Bolt as they came', () => {
    const { app, registered } = recordingApp();
    const folded = foldListeners(app);
    const handler = async () => undefined;
    folded.app.action(/^tx\.page\./, handler);
    folded.app.action('same', handler);
    folded.app.action('same', handler);
    folded.app.view('two', handler, handler);
    folded.app.command('/cngn', handler);
    expect(registered.map((r) => [r.kind, String(r.constraint), r.listeners.length])).toEqual([
      ['action', '/^tx\\.page\\./', 1],
      ['action', 'same', 1],
      ['view', 'two', 2],
      ['command', '/cngn', 1],
    ]);
  });

  it("lets a handler's error reach Bolt", async () => {
    const { app, registered } = recordingApp();
    const folded = foldListeners(app);
    folded.app.view('fails', async () => {
      throw new Error('listener failed');
    });
    folded.bind();
    await expect(registered[0]?.listeners[0]?.({ body: { view: { callback_id: 'fails' } } })).rejects.toThrow(
      'listener failed',
    );
  });
});
