// Builders of the approval feature, every outside value set to one text: the request message and its
// copies, what follows a request once filed, and the freeze of sends.
import type { ApprovalRequest } from '../../../src/approvals/types.js';
import { Money } from '../../../src/format/money.js';
import { approvalDm } from '../../../src/slack/approvals/blocks/dm.js';
import { pendingList, refusalText } from '../../../src/slack/approvals/blocks/lists.js';
import {
  approvalMessage,
  conflictAlert,
  staleRoundNotice,
} from '../../../src/slack/approvals/blocks/message.js';
import { policyMessage } from '../../../src/slack/approvals/blocks/policy.js';
import { extendAnswer, reminderDm } from '../../../src/slack/approvals/blocks/reminders.js';
import {
  changedWhileOpen,
  reviewModal,
  reviewRefusedView,
} from '../../../src/slack/approvals/blocks/review.js';
import { reviewAllModal, reviewAllResultView } from '../../../src/slack/approvals/blocks/review-all.js';
import { shortApprovalMessages } from '../../../src/slack/approvals/blocks/short-message.js';
import { requesterNotice, threadReply } from '../../../src/slack/approvals/blocks/steps.js';
import { homeView } from '../../../src/slack/approvals/home/blocks.js';
import { delegationList } from '../../../src/slack/ui/delegations.js';
import { freezeBanner, frozenAnnouncement, liftedAnnouncement } from '../../../src/slack/ui/freeze.js';
import { type Add, everyCombination, fakeExplorers, freezeOf, PERMALINK } from './inputs.js';
import { ACTIONS, atStep, NOW, requestsOf, STATES } from './support.js';

/**
 * The approval message in every state and its copies: the review, DMs, App Home, thread replies,
 * refusals, the pending list, and the notices of a freeze of sends.
 */
export function approvalBuilders(text: string, add: Add): void {
  const freeze = freezeOf(text);
  for (const explorer of fakeExplorers(text)) {
    for (const request of requestsOf(text, explorer)) {
      for (const state of STATES) {
        add(`approval message ${request.kind} ${state}`, approvalMessage({ ...request, state }, NOW));
        const frozen = approvalMessage({ ...request, state }, NOW, {}, freeze);
        add(`approval message ${request.kind} ${state}, frozen`, frozen);
      }
      add(`stale-round notice ${request.kind}`, staleRoundNotice(request, NOW));
      add(
        `review modal ${request.kind}`,
        reviewModal(request, NOW, { id: request.id, round: 0, environment: 'live' }),
      );
      add(`review refused ${request.kind}`, reviewRefusedView(changedWhileOpen(request), request, NOW));
      for (const state of STATES)
        add(`approver DM ${request.kind} ${state}`, approvalDm({ ...request, state }, NOW));
      const approved = atStep(request, 'approved', 'approved', text);
      add(
        `approver DM ${request.kind} stoppable`,
        approvalDm(approved, NOW, 'UAPPROVERB', undefined, undefined, true),
      );
      for (const to of ['rejected', 'cancelled'] as const) {
        add(`thread reply ${request.kind} ${to} after approval`, threadReply(atStep(approved, to, to, text)));
      }
      add(
        `App Home ${request.kind}`,
        homeView({
          now: NOW,
          environment: 'sandbox',
          waiting: [request],
          mine: [{ request, link: PERMALINK }],
          balance: { entries: [{ asset_code: text, balance: '1500.00' }], asOf: NOW },
          alerts: [
            { key: text, event: text, at: NOW.toISOString(), status: text, reference: text, amount: '12.00' },
            // Stored as the webhook wrote it, before alert times were read as the intake reads them.
            { key: `${text}-2`, event: text, at: text, reference: text },
          ],
        }),
      );
      if (!everyCombination(explorer, text)) continue;
      for (const action of [...ACTIONS, text]) {
        for (const state of ['pending', 'failed', 'rejected', 'completed'] as const) {
          const step = atStep(request, state, action, text);
          add(`thread reply ${request.kind} ${action}`, threadReply(step));
          add(`requester DM ${request.kind} ${action}`, requesterNotice(step) ?? '');
          add(`alert for a person ${request.kind} ${action}`, conflictAlert(step));
        }
      }
      for (const reason of [
        'requester',
        'not-approver',
        'already-approved',
        'not-requester',
        'expired',
        'not-pending',
        'checking',
        'recheck-failed',
        'not-unknown',
        'settled-by-the-bot',
        'already-sending',
        'delegate-after-approval',
        'not-found',
        'froze',
      ] as const) {
        for (const state of STATES) add(`refusal ${reason}`, refusalText(reason, { ...request, state }));
      }
    }
  }
  const requests = requestsOf(text, text);
  add('pending list', pendingList(requests, NOW, 'LIVE'));
  for (const request of requests) {
    for (const [at, form] of shortApprovalMessages(request, approvalMessage(request, NOW)).entries()) {
      add(`approval message in short ${request.kind} (form ${at + 1})`, form);
    }
  }
  // The freeze of sends: its banner, the channel's notices, and App Home with it.
  add('freeze banner', { blocks: [freezeBanner(freeze)] });
  add('freeze banner, frozen at start-up', { blocks: [freezeBanner({ ...freeze, by: text })] });
  add('frozen announcement', frozenAnnouncement(freeze, [text]));
  add('lifted announcement', liftedAnnouncement(freeze, 'UAPPROVERA', text));
  add(
    'App Home, frozen',
    homeView({ now: NOW, environment: 'live', waiting: [], mine: [], alerts: [], freeze }),
  );
}

/** What follows a request once filed: reminders and extensions, review all, delegations, and the policy. */
export function approvalFollowUpBuilders(text: string, add: Add): void {
  const freeze = freezeOf(text);
  const requests = requestsOf(text, text);
  for (const request of requests.slice(0, 5)) {
    const reminded = {
      ...request,
      announcement: { channel: 'CAPPROVALS', ts: '1700000000.000100' },
      history: [
        ...request.history,
        {
          at: '2026-11-23T07:30:00.000Z',
          state: 'pending',
          action: 'reminder',
          reminder: { point: 2, of: 2, share: '90%', waiting: ['UAPPROVERB'], needed: 1 },
        },
      ],
    } as ApprovalRequest;
    add(`reminder DM ${request.kind}`, reminderDm(reminded));
    add(`reminder thread reply ${request.kind}`, threadReply(reminded));
    add(`requester reminder ${request.kind}`, requesterNotice(reminded) ?? '');
    add(`extend answer ${request.kind}`, extendAnswer({ ok: true, request }));
    add(`extend refused ${request.kind}`, extendAnswer({ ok: false, reason: 'already-extended', request }));
  }
  add('review all', reviewAllModal(requests, NOW, text, '{}'));
  add('review all results', reviewAllResultView([{ id: text, outcome: 'not-approved', text }]));
  const delegation = {
    id: text,
    delegator: 'UAPPROVERA',
    delegate: 'UAPPROVERB',
    from: '2026-11-23T07:00:00.000Z',
    until: '2026-11-24T07:00:00.000Z',
    max: text,
    approvedBy: ['UREQ'],
  };
  add('delegations', delegationList([delegation], NOW, text, true));
  add(
    'policy',
    policyMessage({
      tiers: [{ min: Money.zero(), approvals: 1 }],
      approvers: [{ id: 'UAPPROVERA', name: text }, { id: text }],
      group: { id: text, members: [{ id: 'UAPPROVERB', name: text }] },
      ttlMs: 86_400_000,
      reminders: [{ share: 0.5, label: text }],
      notify: text,
      approvalsChannel: 'CAPPROVALS',
      alertsChannel: text,
      environment: 'live',
      delegations: [delegation],
      freeze,
      roles: {
        readers: { everyone: false, people: [{ id: 'UREQ', name: text }, { id: text }], groups: [text] },
        requesters: { everyone: true, people: [], groups: [] },
        auditors: { everyone: false, people: [{ id: text, name: text }], groups: [] },
        ownPools: [
          {
            kind: 'settlement',
            holders: { everyone: false, people: [{ id: 'UAPPROVERB', name: text }], groups: [text] },
          },
        ],
      },
      now: NOW,
    }),
  );
  add(
    'policy, group unread',
    policyMessage({
      tiers: [],
      approvers: [],
      group: { id: text, problem: text },
      ttlMs: 1,
      reminders: [],
      approvalsChannel: text,
      environment: 'live',
    }),
  );
}
