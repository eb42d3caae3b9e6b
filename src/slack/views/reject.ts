// The reject modal's submission: a reason is required; the engine decides, the presenter shows it.
import type { App, ViewSubmitAction } from '@slack/bolt';
import type { ApprovalSlackDeps } from '../actions/approval.js';
import { explainRefusal } from '../actions/approval.js';
import { REJECT, REJECT_VIEW } from '../blocks/approval-modals.js';
import { parseReject, parseSubmission, readMetadata } from './approval-forms.js';

export function registerRejectView(app: App, deps: ApprovalSlackDeps): void {
  app.view<ViewSubmitAction>(REJECT_VIEW, async ({ ack, body, client }) => {
    const parsed = parseSubmission(body.view, REJECT, parseReject);
    if (!parsed.ok) return void (await ack({ response_action: 'errors', errors: parsed.errors }));
    await ack();
    const meta = readMetadata(body.view.private_metadata);
    const result = await deps.engine.reject(meta.id ?? '', body.user.id, parsed.value.reason);
    if (!result.ok) {
      await explainRefusal(
        client,
        deps,
        { user: body.user.id, ...(meta.channel ? { channel: meta.channel } : {}) },
        result.reason,
        result.request,
      );
    }
  });
}
