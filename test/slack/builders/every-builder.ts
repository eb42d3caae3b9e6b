// Every builder of a Slack message, view or text, with every value that comes from a person, the
// service or a webhook set to one text: what the outside-text tests run their checks over. Builders in
// src/slack/blocks/, the views' notices, the webhook alerts and digests, and the alert fallback.
import type { BreakKind, ChainReport } from '../../../src/approvals/audit-chain.js';
import type { AuditCheck } from '../../../src/approvals/audit-keeper.js';
import type { ApprovalRequest, AuditEntry } from '../../../src/approvals/types.js';
import { CredentialsError } from '../../../src/cngn/credentials.js';
import { CngnError, RateBudgetError } from '../../../src/cngn/errors.js';
import {
  bankSchema,
  bridgeQuoteSchema,
  dedicatedAccountSchema,
  networkSchema,
  paginationSchema,
  temporaryAccountSchema,
  transactionSchema,
  webhookEventSchema,
  whitelistedAddressSchema,
} from '../../../src/cngn/schemas.js';
import { Money, MoneyFormatError } from '../../../src/format/money.js';
import { escapeMrkdwn } from '../../../src/format/mrkdwn.js';
import {
  ALL_LETTERS,
  deadLetterLine,
  deadLettersMessage,
  repostModal,
  repostSummary,
} from '../../../src/slack/alerts/dead-letter-blocks.js';
import {
  alertDigestMessage,
  alertDigestPlaceholder,
  alertWhereaboutsBlock,
} from '../../../src/slack/alerts/digest-blocks.js';
import { webhookMessage } from '../../../src/slack/alerts/message-blocks.js';
import { bankOptions, redeemModal, settlementModal } from '../../../src/slack/approvals/blocks/bank-modal.js';
import { approvalDm } from '../../../src/slack/approvals/blocks/dm.js';
import { auditList, pendingList, refusalText } from '../../../src/slack/approvals/blocks/lists.js';
import { approvalMessage, staleRoundNotice } from '../../../src/slack/approvals/blocks/message.js';
import {
  bridgeModal,
  rejectModal,
  toNetworkChoices,
  whitelistModal,
  withdrawModal,
} from '../../../src/slack/approvals/blocks/modals.js';
import { policyMessage } from '../../../src/slack/approvals/blocks/policy.js';
import { extendAnswer, reminderDm } from '../../../src/slack/approvals/blocks/reminders.js';
import {
  changedWhileOpen,
  reviewModal,
  reviewRefusedView,
} from '../../../src/slack/approvals/blocks/review.js';
import { reviewAllModal, reviewAllResultView } from '../../../src/slack/approvals/blocks/review-all.js';
import { requesterNotice, threadReply } from '../../../src/slack/approvals/blocks/steps.js';
import {
  auditAlarmMessage,
  auditArchiveMessage,
  auditExportMessage,
  auditVerifyMessage,
  describeAuditEntry,
} from '../../../src/slack/audit/blocks.js';
import { parseAuditRange } from '../../../src/slack/audit/command.js';
import { delegationList } from '../../../src/slack/delegation/blocks.js';
import {
  depositModal,
  depositResultView,
  quoteModal,
  quoteResultView,
} from '../../../src/slack/deposits/blocks.js';
import { freezeBanner, frozenAnnouncement, liftedAnnouncement } from '../../../src/slack/freeze/blocks.js';
import { homeView } from '../../../src/slack/home/blocks.js';
import {
  accountsMessage,
  balanceMessage,
  banksMessage,
  errorMessage,
  formErrorView,
  helpMessage,
  loadingView,
  networksMessage,
  noticeMessage,
  txDetailMessage,
  txListMessage,
  whitelistMessage,
  withEnvironment,
} from '../../../src/slack/reads/blocks.js';
import { txFromAlertsMessage } from '../../../src/slack/reads/tx-alerts.js';
import { help } from '../../../src/slack/registry.js';
import { describeError } from '../../../src/slack/runtime/errors.js';
import { SlackUploadError, uploadFailureText } from '../../../src/slack/runtime/files.js';
import { alertFor } from '../../../src/webhooks/alert.js';
import { ACTIONS, atStep, NOW, requestsOf, STATES } from './support.js';

/** Explorer links that are not to be linked: another host, plain http on a known host, the text itself. */
const fakeExplorers = (text: string) => [
  'https://evil.example/tx/0xabc',
  'http://basescan.org/tx/0xabc',
  text,
];

export type Built = { name: string; built: unknown };
/** Slack's own link to a request message (chat.getPermalink): the one link Home makes. */
const PERMALINK = 'https://example.slack.com/archives/C1/p1000000000000001';

/** Every builder, every outside field set to `text`. */
export function everyBuilder(text: string): Built[] {
  const out: Built[] = [];
  const add = (name: string, built: unknown) => out.push({ name, built });
  const freeze = { by: 'UAPPROVERB', reason: text, at: NOW.toISOString() };

  // ---- approvals: the message in every state, thread replies, DMs, refusals, lists, modals
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
          ],
        }),
      );
      for (const action of [...ACTIONS, text]) {
        for (const state of ['pending', 'failed', 'rejected', 'completed'] as const) {
          const step = atStep(request, state, action, text);
          add(`thread reply ${request.kind} ${action}`, threadReply(step));
          add(`requester DM ${request.kind} ${action}`, requesterNotice(step) ?? '');
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
        'not-found',
        'froze',
      ] as const) {
        for (const state of STATES) add(`refusal ${reason}`, refusalText(reason, { ...request, state }));
      }
    }
  }
  const requests = requestsOf(text, text);
  add('pending list', pendingList(requests, NOW, 'LIVE'));
  // ---- the freeze of sends: its banner, the channel's notices, App Home and the policy with it
  add('freeze banner', { blocks: [freezeBanner(freeze)] });
  add('freeze banner, frozen at start-up', { blocks: [freezeBanner({ ...freeze, by: text })] });
  add('frozen announcement', frozenAnnouncement(freeze, [text]));
  add('lifted announcement', liftedAnnouncement(freeze, 'UAPPROVERA', text));
  add(
    'App Home, frozen',
    homeView({ now: NOW, environment: 'live', waiting: [], mine: [], alerts: [], freeze }),
  );
  const entries: AuditEntry[] = ACTIONS.map((action) => ({
    at: '2026-11-23T07:00:00.000Z',
    requestId: text,
    kind: 'redeem',
    action,
    state: 'pending',
    actor: 'UAPPROVERA',
    amount: text,
    note: text,
  }));
  entries.push({ ...(entries[0] as AuditEntry), action: text });
  add('audit list', auditList(entries, 'LIVE'));
  // ---- audit verify, archive, alarm and export
  const breaks: BreakKind[] = ['edited', 'deleted', 'reordered', 'rewritten', 'unchained', 'legacy-edited'];
  const checked = (chain: ChainReport, more: Partial<AuditCheck> = {}): AuditCheck => ({
    ok: chain.ok,
    environment: 'live',
    checkedAt: NOW.toISOString(),
    chain,
    problems: [],
    incidents: [],
    ...more,
  });
  for (const [index, entry] of [
    ...entries,
    { ...(entries[0] as AuditEntry), requestId: undefined, subject: text },
  ].entries()) {
    add(`audit entry ${entry.action}`, describeAuditEntry(entry as AuditEntry, index));
    for (const kind of breaks) {
      add(
        `audit verify ${kind}`,
        auditVerifyMessage(
          checked({
            ok: false,
            total: 3,
            unchained: 1,
            chained: 2,
            broken: { kind, index, entry: entry as AuditEntry, missing: 2 },
          }),
          'LIVE',
        ),
      );
    }
  }
  const incident = { ...(entries[0] as AuditEntry), action: 'head-unverified', note: text, seq: 4 };
  const withEverything = checked(
    { ok: true, total: 3, unchained: 0, chained: 3 },
    {
      ok: false,
      problems: [{ kind: 'archive-invalid', text }],
      incidents: [incident],
      signing: { publicKey: 'ab'.repeat(32), origin: text },
      archive: { folder: text, segments: 2, through: 7, lastAt: NOW.toISOString() },
    },
  );
  add(
    'audit verify intact',
    auditVerifyMessage(checked({ ok: true, total: 3, unchained: 0, chained: 3 }), 'LIVE'),
  );
  add('audit verify with findings', auditVerifyMessage(withEverything, 'LIVE'));
  add('audit alarm', auditAlarmMessage(withEverything, [incident], 'LIVE'));
  add(
    'audit archive refused',
    auditArchiveMessage({ written: false, reason: 'refused', why: text }, { folder: text }, 'LIVE'),
  );
  add(
    'audit archive written',
    auditArchiveMessage(
      { written: true, segment: '0000000000-0000000003-20261102T101500Z', firstSeq: 0, lastSeq: 3, count: 4 },
      { folder: text, publicKey: 'ab'.repeat(32) },
      'LIVE',
    ),
  );
  add('audit export', auditExportMessage(3, { from: NOW, to: NOW }, 'LIVE'));

  // ---- dead letters
  const letters = ['', text, 1500].map((amount, i) => ({
    id: `5f0c2b9e-7a1d-4c3e-9b8f-00000000000${i}`, // the bot's own id
    channel: text,
    reason: text,
    attempts: 3,
    at: '2026-11-23T07:00:00.000Z',
    event: webhookEventSchema.parse({ event: text, data: { trx_ref: text, transactionId: text, amount } }),
  }));
  for (const letter of letters) {
    add('dead letter line', deadLetterLine(letter));
    add('re-post modal', repostModal(letter, 1, 'LIVE'));
  }
  add('dead letters', deadLettersMessage(letters, 'LIVE'));
  add('re-post all modal', repostModal(ALL_LETTERS, letters.length, 'LIVE'));
  add('re-post summary', repostSummary(letters.map(deadLetterLine)));
  add('reject modal', rejectModal({ requestId: text, title: text, channel: text }));

  const networks = [
    networkSchema.parse({ id: text, name: text, short_name: text, isDisabled: false, blockchain: null }),
    networkSchema.parse({ id: 'n2', name: text, short_name: 'base', isDisabled: true, blockchain: null }),
  ];
  const choices = toNetworkChoices(networks);
  const errors = (ids: string[]) => Object.fromEntries(ids.map((id) => [id, text]));
  const prefill = (ids: string[]) => Object.fromEntries(ids.map((id) => [id, text]));
  const withdrawIds = [
    'withdraw.amount',
    'withdraw.network',
    'withdraw.whitelisted',
    'withdraw.address',
    'withdraw.purpose',
  ];
  add(
    'withdraw modal',
    withdrawModal({
      networks: choices,
      whitelist: [{ networkId: text, networkName: text, address: text }],
      prefill: prefill(withdrawIds),
      errors: errors(withdrawIds),
      environment: 'LIVE',
    }),
  );
  const bridgeIds = [
    'bridge.amount',
    'bridge.origin',
    'bridge.destination',
    'bridge.address',
    'bridge.sender',
    'bridge.purpose',
  ];
  add(
    'bridge modal',
    bridgeModal({
      networks: choices,
      prefill: prefill(bridgeIds),
      errors: errors(bridgeIds),
      environment: 'LIVE',
    }),
  );
  add(
    'whitelist modal',
    whitelistModal({ networks: choices, prefill: prefill(['whitelist.address']), environment: 'LIVE' }),
  );
  const bank = { code: text, name: text };
  add(
    'redeem modal',
    redeemModal({
      prefill: { amount: text, account: text, purpose: text },
      bank,
      errors: errors(['redeem.amount', 'redeem.bank', 'redeem.account', 'redeem.purpose']),
      environment: 'LIVE',
    }),
  );
  add(
    'settlement modal',
    settlementModal({
      prefill: { account: text },
      bank,
      errors: errors(['settlement.bank', 'settlement.account']),
      environment: 'LIVE',
    }),
  );

  // ---- reads
  add('help', helpMessage([{ usage: text, summary: text, example: text }], escapeMrkdwn(text)));
  add('help for an unknown word', help(text));
  add('balance', balanceMessage([{ asset_code: text, balance: text }], NOW, NOW));
  add('networks', networksMessage(networks));
  add('banks', banksMessage([bankSchema.parse({ name: text, code: text })], text, 1));
  add(
    'accounts',
    accountsMessage([
      dedicatedAccountSchema.parse({
        accountNumber: text,
        accountName: text,
        bankName: text,
        bankCode: text,
      }),
    ]),
  );
  const address = '0x52908400098527886E0F7030069857D2E4169EE7';
  const whitelisted = [
    whitelistedAddressSchema.parse({
      id: '1',
      networkId: text,
      publicKey: text,
      network: { id: text, name: text, short_name: text },
    }),
    whitelistedAddressSchema.parse({
      id: '2',
      networkId: text,
      publicKey: address,
      network: { id: text, name: text, short_name: 'base' },
    }),
  ];
  add('whitelist', whitelistMessage(whitelisted, networks, 'live'));
  const receivers: unknown[] = [
    text,
    `058:0123456789:${text}`,
    { address: text },
    { address },
    { bank: text, accountNumber: text, accountName: text },
    { bank: { name: text, code: text }, accountNumber: '0123456789', accountName: text },
  ];
  for (const explorer of fakeExplorers(text)) {
    for (const receiver of receivers) {
      for (const type of [text, 'crypto_deposit', 'withdraw']) {
        const tx = transactionSchema.parse({
          id: text,
          from: text,
          receiver,
          amount: text,
          description: text,
          createdAt: '2026-11-23T07:00:00.000Z',
          trx_ref: text,
          trx_type: type,
          network: text,
          asset_symbol: text,
          base_trx_hash: text,
          extl_trx_hash: `0x${'1'.repeat(64)}`,
          explorer_link: explorer,
          status: text,
        });
        const pagination = paginationSchema.parse({
          count: 30,
          pages: 3,
          isLastPage: false,
          nextPage: 3,
          previousPage: 1,
        });
        add(`tx list ${type}`, txListMessage([tx], pagination, 2, NOW));
        add(`tx detail ${type}`, txDetailMessage(tx, 'live', networks));
        add(`tx detail ${type} (network by code)`, txDetailMessage({ ...tx, network: 'base' }, 'test', []));
      }
    }
  }
  add('loading view', loadingView(text));
  // These take mrkdwn: their callers escape what came from outside, as here.
  add('form error view', formErrorView(escapeMrkdwn(text), text));
  add('error message', errorMessage(escapeMrkdwn(text)));
  add('notice message', noticeMessage(escapeMrkdwn(text)));
  add('answer with environment note', withEnvironment(noticeMessage(escapeMrkdwn(text)), 'live', text));
  const range = parseAuditRange([text], NOW);
  if ('error' in range) add('audit export, not a date', errorMessage(range.error));
  add('upload refused', errorMessage(uploadFailureText(new SlackUploadError(text))));
  for (const error of [new MoneyFormatError(text), new CredentialsError(text), new RateBudgetError(3)]) {
    add(`error ${error.name}`, errorMessage(describeError(error).text));
  }
  for (const status of [400, 403, 404, 422, 500]) {
    add(
      `service error ${status}`,
      errorMessage(describeError(new CngnError(text, status, `POST /v1/api/${text}`)).text),
    );
  }

  // ---- deposit and quote
  add(
    'deposit modal',
    depositModal({
      prefill: prefill(['deposit.amount', 'deposit.email', 'deposit.narration']),
      environment: text,
    }),
  );
  add(
    'quote modal',
    quoteModal({ networks: choices, prefill: prefill(['quote.amount', 'quote.address']), environment: text }),
  );
  add(
    'deposit account',
    depositResultView(
      temporaryAccountSchema.parse({
        reference: text,
        amount: text,
        amountExpected: text,
        fee: text,
        vat: text,
        accountNumber: text,
        accountName: text,
        bankName: text,
        expiresAt: '2026-11-23T08:30:00.000Z',
      }),
      NOW,
      text,
    ),
  );
  add(
    'bridge quote',
    quoteResultView(
      {
        amount: text,
        origin: text,
        destination: text,
        address: text,
        quote: bridgeQuoteSchema.parse({ amountReceivable: text, networkFee: text, bridgeFee: text }),
      },
      text,
    ),
  );

  // ---- webhook alerts
  const events = [
    'deposit.received',
    'deposit.completed',
    'withdrawal.completed',
    'bridge.completed',
    'redemption.completed',
    'transaction.failed',
    text,
  ];
  for (const explorer of fakeExplorers(text)) {
    for (const event of events) {
      for (const receiver of receivers) {
        for (const type of ['crypto_deposit', 'fiat_redeem', 'swap', text]) {
          const parsed = webhookEventSchema.parse({
            event,
            data: {
              transactionId: text,
              trx_ref: text,
              status: text,
              trx_type: type,
              network: text,
              base_trx_hash: text,
              extl_trx_hash: `0x${'2'.repeat(64)}`,
              explorer_link: explorer,
              amount: text,
              asset_symbol: text,
              receiver,
              reason: text,
              occurredAt: text,
            },
            timestamp: text,
          });
          for (const origin of ['webhook', 'reconciler'] as const) {
            add(
              `alert ${event} ${type}`,
              webhookMessage({ event: parsed, origin, environment: 'live', bankName: text }),
            );
          }
          add(
            `alert ${event} unreadable`,
            webhookMessage({ event: parsed, origin: 'webhook', environment: 'live', unreadable: [text] }),
          );
        }
      }
    }
  }
  // ---- reminders, review all, delegations, policy
  for (const request of requests.slice(0, 5)) {
    const reminded = {
      ...request,
      slackMessage: { channel: 'CAPPROVALS', ts: '1700000000.000100' },
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
  add('review all results', reviewAllResultView([{ id: text, approved: false, text }]));
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
  add('bank options', { blocks: bankOptions([{ code: text, name: text }], '') });

  // ---- the alerts behind /cngn tx, and digests
  const recorded = {
    at: text,
    amount: text,
    asset: text,
    status: text,
    reference: text,
    transactionId: text,
    network: text,
    reason: text,
  };
  const whereabouts = [
    { event: text, state: 'posted' as const, channel: text, ts: text, recorded },
    { event: text, state: 'posted' as const, channel: 'CALERTS', permalink: PERMALINK, digestPart: 2 },
    { event: text, state: 'waiting' as const },
    { event: text, state: 'set-aside' as const },
  ];
  add('tx from alerts', txFromAlertsMessage(text, escapeMrkdwn(text), whereabouts));
  add('alert whereabouts', { blocks: [alertWhereaboutsBlock(whereabouts)] });
  const digestAlerts = ['deposit.completed', 'withdrawal.completed', text].map((event) => ({
    event: webhookEventSchema.parse({
      event,
      data: {
        trx_ref: text,
        transactionId: text,
        amount: text,
        network: text,
        base_trx_hash: text,
        explorer_link: text,
      },
    }),
    origin: 'reconciler' as const,
    environment: 'live' as const,
  }));
  const digest = { alerts: digestAlerts, environment: 'live' as const, part: 2, more: true };
  add('alert digest', alertDigestMessage(digest));
  add('alert digest placeholder', alertDigestPlaceholder(digest));
  return out;
}

/** What the alert for an event is when its builder throws: the entry's key fields as text. */
export async function fallbackAlert(text: string) {
  const event = webhookEventSchema.parse({
    event: text,
    data: { trx_ref: text, amount: text, status: text },
  });
  return alertFor(
    { id: 'e1', event, origin: 'webhook', environment: 'live', receivedAt: NOW.toISOString() } as never,
    {
      render: () => {
        throw new Error('builder bug');
      },
      log: { error: () => {}, warn: () => {}, info: () => {} } as never,
    },
  );
}
