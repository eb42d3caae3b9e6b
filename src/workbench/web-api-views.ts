// views.open / push / update / publish as Slack answers them: a trigger_id opens one view within 3 s
// of the click, a stack holds at most 3 views, a stale hash is refused, and every view is checked
// against Block Kit's limits before anyone sees it.
import type { View } from '@slack/types';
import { USERS, userById } from './people.js';
import type { WorkbenchModal } from './protocol.js';
import { checkView, SlackRefusal, type Triggers } from './slack-rules.js';
import { type Answer, newHash, ok, refused } from './slack-shapes.js';
import { viewOutput, withIds } from './views.js';
import { newId, type Workspace } from './workspace.js';

/** Slack's limit on a modal stack (views.push). */
export const MAX_STACK = 3;

export class ViewsApi {
  constructor(
    private readonly workspace: Workspace,
    private readonly triggers: Triggers,
  ) {}

  private parseView(args: Record<string, unknown>, kind: 'modal' | 'home'): View {
    const view = args.view;
    if (view === undefined)
      throw new SlackRefusal('invalid_arguments', ['[ERROR] missing required field: view']);
    checkView(view, kind);
    const v = structuredClone(view) as View;
    v.blocks = withIds(v.blocks);
    return v;
  }

  async open(args: Record<string, unknown>): Promise<Answer> {
    const user = this.triggers.use(args.trigger_id);
    const view = this.parseView(args, 'modal');
    const modal: WorkbenchModal = { id: newId('V'), hash: newHash(), view };
    // A new root: whatever was open is replaced, as views.open does.
    await this.workspace.changeModals(user, () => ({ stack: [modal], answer: undefined }));
    return ok({ view: viewOutput(modal) });
  }

  async push(args: Record<string, unknown>): Promise<Answer> {
    const user = this.triggers.use(args.trigger_id);
    const view = this.parseView(args, 'modal');
    const modal: WorkbenchModal = { id: newId('V'), hash: newHash(), view };
    const problem = await this.workspace.changeModals(user, (stack) => {
      if (!stack.length) return { stack, answer: 'not_found' };
      if (stack.length >= MAX_STACK) return { stack, answer: 'push_limit_reached' };
      return { stack: [...stack, modal], answer: undefined };
    });
    if (problem) return refused(problem);
    return ok({ view: viewOutput(modal) });
  }

  async update(args: Record<string, unknown>): Promise<Answer> {
    const viewId = typeof args.view_id === 'string' ? args.view_id : undefined;
    const externalId = typeof args.external_id === 'string' ? args.external_id : undefined;
    if (!viewId && !externalId)
      return refused('invalid_arguments', ['[ERROR] view_id or external_id is required']);
    const matches = (m: { id: string; view: View }) =>
      viewId ? m.id === viewId : (m.view as { external_id?: string }).external_id === externalId;
    const hash = typeof args.hash === 'string' ? args.hash : undefined;
    for (const user of USERS) {
      const home = await this.workspace.home(user.id);
      if (home && matches({ id: home.id, view: home })) {
        if (hash && hash !== home.hash) return refused('hash_conflict');
        const view = this.parseView(args, 'home');
        const next = { ...view, id: home.id, hash: newHash() };
        await this.workspace.setHome(user.id, next);
        return ok({ view: viewOutput({ id: next.id, hash: next.hash, view }) });
      }
      const stack = await this.workspace.modals(user.id);
      if (!stack.some(matches)) continue;
      const view = this.parseView(args, 'modal');
      const answer = await this.workspace.changeModals(user.id, (current) => {
        const index = current.findIndex(matches);
        const found = current[index];
        if (!found) return { stack: current, answer: refused('not_found') };
        if (hash && hash !== found.hash) return { stack: current, answer: refused('hash_conflict') };
        const next: WorkbenchModal = { id: found.id, hash: newHash(), view };
        const updated = [...current];
        updated[index] = next;
        return {
          stack: updated,
          answer: ok({ view: viewOutput(next, { root: current[0]?.id, previous: current[index - 1]?.id }) }),
        };
      });
      return answer;
    }
    return refused('not_found');
  }

  async publish(args: Record<string, unknown>): Promise<Answer> {
    const user = String(args.user_id ?? '');
    if (!userById(user)) return refused('user_not_found');
    const view = this.parseView(args, 'home');
    const current = await this.workspace.home(user);
    if (typeof args.hash === 'string' && current && args.hash !== current.hash)
      return refused('hash_conflict');
    const next = { ...view, id: current?.id ?? newId('V'), hash: newHash() };
    await this.workspace.setHome(user, next);
    return ok({ view: viewOutput({ id: next.id, hash: next.hash, view }) });
  }
}
