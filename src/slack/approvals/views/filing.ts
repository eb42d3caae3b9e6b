// Submissions of the withdraw, bridge and whitelist modals. Field errors answer at once
// (`response_action: errors`); otherwise ack first with a "working" view, then read the service
// (network names, the live bridge quote), file the request and show where it waits.
import type { AckFn, App, ViewResponseAction, ViewSubmitAction } from '@slack/bolt';
import type { ModalView } from '@slack/types';
import type { WebClient } from '@slack/web-api';
import { type FileOptions, LimitExceededError, SameRequestError } from '../../../approvals/index.js';
import type {
  ApprovalRequest,
  LookAlikeMark,
  RequestDraft,
  SameRequestMark,
} from '../../../approvals/types.js';
import type { Network } from '../../../cngn/schemas.js';
import { naira } from '../../../format/display.js';
import { Money } from '../../../format/money.js';
import { escapeMrkdwn, mentionChannel } from '../../../format/mrkdwn.js';
import { viewDelivery } from '../../runtime/deliveries.js';
import { plainError } from '../../runtime/errors.js';
import { filedMetadata, unlessUnseen } from '../actions/filed.js';
import { checksBlocks } from '../blocks/checks.js';
import { dailyLimitText } from '../blocks/limits.js';
import { hiddenCharactersNotice } from '../blocks/message.js';
import {
  BRIDGE,
  BRIDGE_VIEW,
  bridgeModal,
  noticeView,
  toNetworkChoices,
  WHITELIST,
  WHITELIST_VIEW,
  WITHDRAW,
  WITHDRAW_VIEW,
  whitelistChoices,
  whitelistModal,
  withdrawModal,
} from '../blocks/modals.js';
import { purposeBlocks } from '../blocks/purpose.js';
import { sameRequestNotice } from '../blocks/same-request.js';
import { requestTitle } from '../blocks/words.js';
import type { ApprovalSlackDeps, FieldErrors } from '../types.js';
import { parseBridge, parseSubmission, parseWhitelist, parseWithdraw, readMetadata } from './forms.js';
import { checkBeforeFiling, quickBalanceErrors } from './preflight.js';

export interface ViewArgs {
  ack: AckFn<ViewResponseAction>;
  body: ViewSubmitAction;
  client: WebClient;
}

/** The sentence shown once a request is filed; `extra` is mrkdwn with its outside values escaped. */
export function filedView(request: ApprovalRequest, channel: string, extra = ''): ModalView {
  const needs = `${request.requiredApprovals} approval${request.requiredApprovals > 1 ? 's' : ''}`;
  const notice = noticeView(
    'Waiting for approval',
    `*${escapeMrkdwn(requestTitle(request))}* is waiting in ${mentionChannel(channel)} for ${needs} from someone other than you. Nothing moves until then.${extra}`,
  );
  return {
    ...notice,
    blocks: [
      ...notice.blocks,
      ...purposeBlocks(request),
      ...hiddenCharactersNotice(request),
      ...sameRequestNotice(request, new Date(request.createdAt)),
      ...checksBlocks(request, new Date(request.createdAt)),
    ],
    private_metadata: filedMetadata(request.id),
  };
}

/**
 * Ack first with a "working" view; then do the slow part, and say plainly if it fails. Each delivery
 * of a submission files at most once (deliveries.ts): a repeat is shown the first one's answer.
 */
export async function ackThenFile(
  args: ViewArgs,
  deps: ApprovalSlackDeps,
  working: string,
  work: () => Promise<ModalView>,
): Promise<void> {
  await args.ack({ response_action: 'update', view: noticeView('One moment', working) });
  let view: ModalView;
  try {
    const turn = await deps.deliveries.claim<ModalView>(viewDelivery(args.body.view));
    view = turn.first
      ? await fileOnce(args, deps, work, turn.answered)
      : ((await turn.answer()) ?? stillFiling(deps.approvalsChannel));
  } catch (error) {
    deps.log?.warn('a submission could not be claimed; nothing was filed', { error: String(error) });
    view = noticeView('Not filed', `Nothing was filed: ${escapeMrkdwn(plainError(error))}`);
  }
  await args.client.views.update({ view_id: args.body.view.id, view });
}

/** The first delivery: file, and record the view it ends with for any repeat of it. */
async function fileOnce(
  args: ViewArgs,
  deps: ApprovalSlackDeps,
  work: () => Promise<ModalView>,
  answered: (view: ModalView) => Promise<void>,
): Promise<ModalView> {
  let view: ModalView;
  try {
    view = await unlessUnseen(deps, await work(), args.body.user.id);
  } catch (error) {
    deps.log?.warn('filing an approval request failed', { error: String(error) });
    view = noticeView('Not filed', `Nothing was filed: ${escapeMrkdwn(plainError(error))}`);
  }
  // Whatever was filed stands; a repeat that finds no answer says it is still being handled.
  await answered(view).catch((error: unknown) => {
    deps.log?.warn('could not record the answer to a submission', { error: String(error) });
  });
  return view;
}

/** A repeat whose first delivery has not answered yet (still at work, or stopped on the way). */
function stillFiling(channel: string): ModalView {
  return noticeView(
    'Already received',
    `This form was already submitted and is still being handled, so nothing more was filed. Once filed, the request waits in ${mentionChannel(channel)}.`,
  );
}

/** Why the form is shown again after filing was refused: a reason under the amount, or the same payment. */
export type AskAgain = (
  refusal: { reason: string } | { sameAs: SameRequestMark },
) => ModalView | Promise<ModalView>;

/**
 * File the draft; when the daily limit refuses it, show the form again (`again`) with the figures under
 * the amount, so the person sees why and can lower it; when the engine found the same payment filed
 * meanwhile (not the one the form asked about), show it again asking "file it again?". Any other
 * error goes to the caller.
 */
export async function fileOrAskAgain(
  deps: ApprovalSlackDeps,
  draft: RequestDraft,
  again: AskAgain,
  options?: FileOptions,
): Promise<ApprovalRequest | ModalView> {
  try {
    return await deps.engine.file(draft, options);
  } catch (error) {
    if (error instanceof SameRequestError) return again({ sameAs: error.mark });
    if (!(error instanceof LimitExceededError)) throw error;
    return again({ reason: `Daily limit: ${dailyLimitText(error.figures)}.` });
  }
}

/** The form's errors and same-payment question for a refusal, the reason under `field`. */
export function refusalShown(
  refusal: Parameters<AskAgain>[0],
  field: string,
): { errors: FieldErrors; sameAs?: SameRequestMark } {
  return 'reason' in refusal
    ? { errors: { [field]: refusal.reason } }
    : { errors: {}, sameAs: refusal.sameAs };
}

/** Whether filing gave a request (rather than the form again). */
export const isFiled = (answer: ApprovalRequest | ModalView): answer is ApprovalRequest =>
  'requester' in answer;

const networkName = (networks: Network[], id: string) => networks.find((n) => n.id === id)?.name ?? id;

/** The withdrawal as drafted from the form; the network's name is shown to approvers. */
function withdrawDraft(
  v: { amount: string; address: string; networkId: string; shouldSaveAddress: boolean; purpose: string },
  requester: string,
  networkName?: string,
): RequestDraft {
  return {
    kind: 'withdraw',
    amount: v.amount,
    payload: {
      amount: v.amount,
      address: v.address,
      networkId: v.networkId,
      shouldSaveAddress: v.shouldSaveAddress,
    },
    display: networkName ? { networkName } : {},
    purpose: v.purpose,
    requester,
  };
}

export function registerFilingViews(app: App, deps: ApprovalSlackDeps): void {
  app.view<ViewSubmitAction>(WITHDRAW_VIEW, async (args) => {
    const meta = readMetadata(args.body.view.private_metadata);
    const parsed = parseSubmission(args.body.view, WITHDRAW, (v) =>
      parseWithdraw(v, meta.networks ?? [], meta.families),
    );
    if (!parsed.ok) return void (await args.ack({ response_action: 'errors', errors: parsed.errors }));
    const v = parsed.value;
    const requester = args.body.user.id;
    const fields = { amount: WITHDRAW.amount, address: WITHDRAW.address };
    const quick = await quickBalanceErrors(deps, withdrawDraft(v, requester), fields);
    if (quick) return void (await args.ack({ response_action: 'errors', errors: quick }));
    await ackThenFile(args, deps, 'Checking the balance and the destination…', async () => {
      const networks = await deps.api.getNetworks();
      const draft = withdrawDraft(v, requester, networkName(networks, v.networkId));
      const comparison = {
        ticked: v.compared,
        shownFor: meta.lookAlike,
        again: { ticked: v.again, shownFor: meta.sameAs },
      };
      const checked = await checkBeforeFiling(deps, draft, fields, comparison);
      // The form again, as filled in, with the reasons under the fields.
      const again = async (errors: FieldErrors, lookAlike?: LookAlikeMark, sameAs?: SameRequestMark) => {
        const whitelist = await deps.api
          .getWhitelisted({ includeNetwork: true, maxAgeMs: 60_000 })
          .catch(() => []);
        return withdrawModal({
          networks: toNetworkChoices(networks),
          whitelist: whitelistChoices(networks, whitelist),
          prefill: {
            amount: v.amount,
            network: v.networkId,
            ...(v.chosen ? { whitelisted: v.chosen } : { address: v.address }),
            purpose: v.purpose,
          },
          errors,
          ...(lookAlike ? { lookAlike } : {}),
          ...(sameAs ? { sameAs: { mark: sameAs, now: deps.now?.() ?? new Date() } } : {}),
          environment: deps.environmentLabel,
        });
      };
      if (!checked.ok) return again(checked.errors, checked.lookAlike, checked.sameAs);
      const filed = await fileOrAskAgain(
        deps,
        draft,
        (refusal) => {
          const shown = refusalShown(refusal, WITHDRAW.amount);
          return again(shown.errors, checked.checks.lookAlike, shown.sameAs ?? checked.checks.sameAs);
        },
        { preflight: checked.checks },
      );
      return isFiled(filed) ? filedView(filed, deps.approvalsChannel) : filed;
    });
  });

  app.view<ViewSubmitAction>(WHITELIST_VIEW, async (args) => {
    const meta = readMetadata(args.body.view.private_metadata);
    const parsed = parseSubmission(args.body.view, WHITELIST, (v) =>
      parseWhitelist(v, meta.networks ?? [], meta.families),
    );
    if (!parsed.ok) return void (await args.ack({ response_action: 'errors', errors: parsed.errors }));
    const v = parsed.value;
    await ackThenFile(args, deps, 'Checking the address…', async () => {
      const networks = await deps.api.getNetworks();
      const draft: RequestDraft = {
        kind: 'whitelist',
        payload: { networkId: v.networkId, address: v.address },
        display: { networkName: networkName(networks, v.networkId) },
        requester: args.body.user.id,
      };
      const comparison = { ticked: v.compared, shownFor: meta.lookAlike };
      const checked = await checkBeforeFiling(deps, draft, { address: WHITELIST.address }, comparison);
      if (!checked.ok) {
        return whitelistModal({
          networks: toNetworkChoices(networks),
          prefill: { network: v.networkId, address: v.address },
          errors: checked.errors,
          ...(checked.lookAlike ? { lookAlike: checked.lookAlike } : {}),
          environment: deps.environmentLabel,
        });
      }
      const request = await deps.engine.file(draft, { preflight: checked.checks });
      return filedView(
        request,
        deps.approvalsChannel,
        '\nRemember: the service allows one whitelist addition per 24 h.',
      );
    });
  });

  app.view<ViewSubmitAction>(BRIDGE_VIEW, async (args) => {
    const meta = readMetadata(args.body.view.private_metadata);
    const parsed = parseSubmission(args.body.view, BRIDGE, (v) =>
      parseBridge(v, meta.networks ?? [], meta.families),
    );
    if (!parsed.ok) return void (await args.ack({ response_action: 'errors', errors: parsed.errors }));
    const v = parsed.value;
    await ackThenFile(args, deps, 'Checking the destination and getting a live quote…', async () => {
      const networks = await deps.api.getNetworks();
      const payload = {
        originNetworkId: v.origin,
        destinationNetworkId: v.destination,
        destinationAddress: v.address,
        ...(v.sender ? { senderAddress: v.sender } : {}),
      };
      const again = (errors: FieldErrors, lookAlike?: LookAlikeMark, sameAs?: SameRequestMark) =>
        bridgeModal({
          networks: toNetworkChoices(networks),
          prefill: {
            amount: v.amount,
            origin: v.origin,
            destination: v.destination,
            address: v.address,
            sender: v.sender,
            purpose: v.purpose,
          },
          errors,
          ...(lookAlike ? { lookAlike } : {}),
          ...(sameAs ? { sameAs: { mark: sameAs, now: deps.now?.() ?? new Date() } } : {}),
          environment: deps.environmentLabel,
        });
      const draft = {
        kind: 'bridge' as const,
        amount: v.amount,
        payload,
        display: {
          originNetworkName: networkName(networks, v.origin),
          destinationNetworkName: networkName(networks, v.destination),
        },
        purpose: v.purpose,
        requester: args.body.user.id,
      };
      const comparison = {
        ticked: v.compared,
        shownFor: meta.lookAlike,
        again: { ticked: v.again, shownFor: meta.sameAs },
      };
      const checked = await checkBeforeFiling(deps, draft, { address: BRIDGE.address }, comparison);
      if (!checked.ok) return again(checked.errors, checked.lookAlike, checked.sameAs);
      let quote: Awaited<ReturnType<typeof deps.api.bridgeQuote>>;
      try {
        quote = await deps.api.bridgeQuote({ amount: Money.parseDecimal(v.amount), ...payload });
      } catch (error) {
        // Show the form again with the service's reason under the amount.
        return again(
          { [BRIDGE.amount]: `Quote: ${plainError(error)}` },
          checked.checks.lookAlike,
          checked.checks.sameAs,
        );
      }
      const figures = {
        amountReceivable: quote.amountReceivable,
        networkFee: quote.networkFee,
        bridgeFee: quote.bridgeFee,
      };
      const request = await fileOrAskAgain(
        deps,
        { ...draft, display: { ...draft.display, quote: figures } },
        (refusal) => {
          const shown = refusalShown(refusal, BRIDGE.amount);
          return again(shown.errors, checked.checks.lookAlike, shown.sameAs ?? checked.checks.sameAs);
        },
        { preflight: checked.checks },
      );
      if (!isFiled(request)) return request;
      return filedView(
        request,
        deps.approvalsChannel,
        `\nLive quote: ${escapeMrkdwn(
          `${naira(figures.amountReceivable)} arrives (network fee ${naira(figures.networkFee)}, bridge fee ${naira(figures.bridgeFee)})`,
        )}. It is checked again at approval.`,
      );
    });
  });
}
