// Builders of the answers to reads and of error and notice views, every outside value set to one text.
import { CredentialsError } from '../../../src/cngn/credentials.js';
import { CngnError, RateBudgetError } from '../../../src/cngn/errors.js';
import {
  bankSchema,
  dedicatedAccountSchema,
  paginationSchema,
  transactionSchema,
  whitelistedAddressSchema,
} from '../../../src/cngn/schemas.js';
import { MoneyFormatError } from '../../../src/format/money.js';
import { escapeMrkdwn } from '../../../src/format/mrkdwn.js';
import { parseAuditRange } from '../../../src/slack/audit/command.js';
import { helpMessage } from '../../../src/slack/commands/help.js';
import { help } from '../../../src/slack/commands/registry.js';
import {
  accountsMessage,
  balanceMessage,
  banksMessage,
  networksMessage,
  txDetailMessage,
  txListMessage,
  whitelistMessage,
} from '../../../src/slack/reads/blocks.js';
import { describeError } from '../../../src/slack/runtime/errors.js';
import { SlackUploadError, uploadFailureText } from '../../../src/slack/runtime/files.js';
import { formErrorView, loadingView } from '../../../src/slack/runtime/open-modal.js';
import { errorMessage, noticeMessage, withEnvironment } from '../../../src/slack/ui/messages.js';
import { ADDRESS, type Add, fakeExplorers, networksOf, receiversOf } from './inputs.js';
import { NOW } from './support.js';

/**
 * The answers to reads (help, balance, networks, banks, accounts, whitelist, transactions) and the
 * error and notice views.
 */
export function readBuilders(text: string, add: Add): void {
  const networks = networksOf(text);
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
      publicKey: ADDRESS,
      network: { id: text, name: text, short_name: 'base' },
    }),
  ];
  add('whitelist', whitelistMessage(whitelisted, networks, 'live'));
  const receivers = receiversOf(text);
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
        add(
          `tx list ${type} (created at a time that is no date)`,
          txListMessage([{ ...tx, createdAt: text }], pagination, 2, NOW),
        );
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
}
