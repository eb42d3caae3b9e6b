// How a test approves, files and checks a request the way people do, shared by the single-app flows and
// the replica acceptance: approving goes through approveAs alone, so a change in how Slack approves
// (a button, a review modal) is one edit here.

import { expect } from 'vitest';
import type { ApprovalRequest } from '../../src/approvals/types.js';
import { APPROVALS_CHANNEL, type ApprovalApp, approve, REQUESTER } from '../slack/approvals/support.js';
import type { SlackCall } from './fake-slack.js';
import { redeemValues, selectValue, slashCommand, textValue, viewSubmission } from './slack-requests.js';

export const GTB = selectValue('058|Guaranty Trust Bank');

/** `userId` approves `requestId` through `app` (one replica's Bolt app): Approve, then the review modal. */
export function approveAs(app: ApprovalApp, requestId: string, userId: string) {
  return approve(app, requestId, userId);
}

type View = { callback_id: string; private_metadata?: string; blocks: Array<Record<string, unknown>> };

/** The form a slash command opened, once it has replaced the loading modal it opens as. */
async function formAfterCommand(app: ApprovalApp, text: string, callbackId: string): Promise<View> {
  const before = app.slack.callsTo('views.update').length;
  const name = `cmd-${Math.random().toString(36).slice(2)}`;
  await slashCommand(app.sender, { text, userId: REQUESTER, responseUrl: app.slack.responseUrl(name) });
  const update = await app.slack.waitFor(
    'views.update',
    (c) =>
      (c.body.view as View | undefined)?.callback_id === callbackId &&
      app.slack.callsTo('views.update').indexOf(c) >= before,
  );
  return update.body.view as View;
}

export interface Filed {
  request: ApprovalRequest;
  /** The approval message as posted in the approvals channel. */
  message: SlackCall;
}

/** Submit a filing form through `app`: the request it filed, once its approval message is posted. */
async function submitAndFind(
  app: ApprovalApp,
  submission: Parameters<typeof viewSubmission>[1],
): Promise<Filed> {
  const before = app.slack.callsTo('chat.postMessage').length;
  const response = await viewSubmission(app.sender, submission);
  if (response.status !== 200) throw new Error(`submission answered ${response.status}`);
  const posted = await app.slack.waitFor(
    'chat.postMessage',
    (c) =>
      c.body.channel === APPROVALS_CHANNEL &&
      !c.body.thread_ts &&
      app.slack.callsTo('chat.postMessage').indexOf(c) >= before,
  );
  const id = /AR-[0-9A-F]+/.exec(String(posted.body.text))?.[0] ?? '';
  const request = await app.engine.get(id);
  if (!request) throw new Error(`filed request ${id} not found`);
  return { request, message: posted };
}

/**
 * The request once its replica has recorded where its approval message is (after posting it): a test
 * that edits the stored record before then races that write, which is refused, and the request is
 * left with no message to update.
 */
export async function announced(app: ApprovalApp, id: string): Promise<ApprovalRequest> {
  await expect.poll(async () => (await app.engine.get(id))?.announcement).toBeDefined();
  const request = await app.engine.get(id);
  if (!request) throw new Error(`request ${id} not found`);
  return request;
}

export function fileRedeem(app: ApprovalApp, amount: string, account = '0123456789', bank = GTB) {
  return submitAndFind(app, {
    callbackId: 'redeem.submit',
    userId: REQUESTER,
    values: redeemValues({ amount: amount, account: account, bank: bank }),
  });
}

export function fileSettlement(app: ApprovalApp, account = '0123456789', bank = GTB) {
  return submitAndFind(app, {
    callbackId: 'settlement.submit',
    userId: REQUESTER,
    values: {
      'settlement.bank': { 'settlement.bank': bank },
      'settlement.account': { 'settlement.account': textValue(account) },
    },
  });
}

/** Whitelist through the slash command's form, as a person does (its metadata carries the networks). */
export async function fileWhitelist(app: ApprovalApp, networkId: string, shortName: string, address: string) {
  const view = await formAfterCommand(app, `whitelist add ${shortName} ${address}`, 'whitelist.submit');
  return submitAndFind(app, {
    callbackId: 'whitelist.submit',
    userId: REQUESTER,
    privateMetadata: view.private_metadata ?? '',
    values: {
      'whitelist.network': { 'whitelist.network': selectValue(networkId) },
      'whitelist.address': { 'whitelist.address': textValue(address) },
    },
  });
}

export function fileBridge(
  app: ApprovalApp,
  amount: string,
  origin: string,
  destination: string,
  address: string,
) {
  return submitAndFind(app, {
    callbackId: 'bridge.submit',
    userId: REQUESTER,
    privateMetadata: JSON.stringify({ networks: [origin, destination] }),
    values: {
      'bridge.amount': { 'bridge.amount': textValue(amount) },
      'bridge.origin': { 'bridge.origin': selectValue(origin) },
      'bridge.destination': { 'bridge.destination': selectValue(destination) },
      'bridge.address': { 'bridge.address': textValue(address) },
      'bridge.purpose': { 'bridge.purpose': textValue('Liquidity for the other chain') },
      'bridge.sender': { 'bridge.sender': textValue('') },
    },
  });
}

/** Enabled network ids by short name, and one disabled network's id. */
export async function networkIds(app: ApprovalApp): Promise<{ base: string; bsc: string; disabled: string }> {
  const networks = await app.client.getNetworks();
  const id = (short: string) => networks.find((n) => n.short_name === short)?.id ?? '';
  return { base: id('base'), bsc: id('bsc'), disabled: networks.find((n) => n.isDisabled)?.id ?? '' };
}
