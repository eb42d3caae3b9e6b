// Submissions of the withdraw, bridge and whitelist modals. Field errors answer at once
// (`response_action: errors`); otherwise ack first with a "working" view, then read the service
// (network names, the live bridge quote), file the request and show where it waits.
import type { AckFn, App, ViewResponseAction, ViewSubmitAction } from '@slack/bolt';
import type { ModalView } from '@slack/types';
import type { WebClient } from '@slack/web-api';
import type {
  ApprovalRequest,
  LookAlikeMark,
  RequestDraft,
  SameRequestMark,
} from '../../../approvals/index.js';
import type { Network } from '../../../cngn/schemas.js';
import { naira } from '../../../format/display.js';
import { Money } from '../../../format/money.js';
import { escapeMrkdwn, mentionChannel } from '../../../format/mrkdwn.js';
import { viewDelivery } from '../../runtime/deliveries.js';
import { plainError } from '../../runtime/errors.js';
import type { ApprovalSlackDeps, FieldErrors } from '../../types.js';
import { noticeView, toNetworkChoices } from '../../ui/modal.js';
import { parseSubmission, readMetadata } from '../../ui/view-values.js';
import { requestTitle } from '../../ui/words.js';
import { filedMetadata, unlessUnseen } from '../actions/filed.js';
import { checksBlocks } from '../blocks/checks.js';
import { hiddenCharactersNotice } from '../blocks/message.js';
import {
  BRIDGE,
  BRIDGE_VIEW,
  bridgeModal,
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
import { parseBridge, parseWhitelist, parseWithdraw } from './forms.js';
import { fileFromForm, problemsBeforeFiling, quickBalanceErrors } from './preflight.js';

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
  app.view<ViewSubmitAction>(WITHDRAW_VIEW, onWithdrawSubmitted(deps));
  app.view<ViewSubmitAction>(WHITELIST_VIEW, onWhitelistSubmitted(deps));
  app.view<ViewSubmitAction>(BRIDGE_VIEW, onBridgeSubmitted(deps));
}

/** The withdraw modal: the balance at once, then the destination, and the request filed. */
function onWithdrawSubmitted(deps: ApprovalSlackDeps): (args: ViewArgs) => Promise<void> {
  return async (args) => {
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
      const filed = await fileFromForm(deps, draft, fields, comparison);
      if (!filed.ok) return again(filed.errors, filed.lookAlike, filed.sameAs);
      return filedView(filed.request, deps.approvalsChannel);
    });
  };
}

/** The whitelist modal: the address checked, and the addition filed. */
function onWhitelistSubmitted(deps: ApprovalSlackDeps): (args: ViewArgs) => Promise<void> {
  return async (args) => {
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
      const filed = await fileFromForm(deps, draft, { address: WHITELIST.address }, comparison);
      if (!filed.ok) {
        return whitelistModal({
          networks: toNetworkChoices(networks),
          prefill: { network: v.networkId, address: v.address },
          errors: filed.errors,
          ...(filed.lookAlike ? { lookAlike: filed.lookAlike } : {}),
          environment: deps.environmentLabel,
        });
      }
      return filedView(
        filed.request,
        deps.approvalsChannel,
        '\nRemember: the service allows one whitelist addition per 24 h.',
      );
    });
  };
}

/** The bridge modal: the destination checked, a live quote asked for, and the bridge filed with it. */
function onBridgeSubmitted(deps: ApprovalSlackDeps): (args: ViewArgs) => Promise<void> {
  return async (args) => {
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
      const fields = { address: BRIDGE.address, limit: BRIDGE.amount };
      // Checked before the quote is asked for; the filing checks everything again.
      const early = await problemsBeforeFiling(deps, draft, fields, comparison);
      if (!early.ok) return again(early.errors, early.lookAlike, early.sameAs);
      let quote: Awaited<ReturnType<typeof deps.api.bridgeQuote>>;
      try {
        quote = await deps.api.bridgeQuote({ amount: Money.parseDecimal(v.amount), ...payload });
      } catch (error) {
        // Show the form again with the service's reason under the amount.
        return again({ [BRIDGE.amount]: `Quote: ${plainError(error)}` }, early.lookAlike, early.sameAs);
      }
      const figures = {
        amountReceivable: quote.amountReceivable,
        networkFee: quote.networkFee,
        bridgeFee: quote.bridgeFee,
      };
      const quoted = { ...draft, display: { ...draft.display, quote: figures } };
      const filed = await fileFromForm(deps, quoted, fields, comparison);
      if (!filed.ok) return again(filed.errors, filed.lookAlike, filed.sameAs);
      return filedView(
        filed.request,
        deps.approvalsChannel,
        `\nLive quote: ${escapeMrkdwn(
          `${naira(figures.amountReceivable)} arrives (network fee ${naira(figures.networkFee)}, bridge fee ${naira(figures.bridgeFee)})`,
        )}. It is checked again at approval.`,
      );
    });
  };
}
