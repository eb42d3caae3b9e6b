// Pure builders for the answers that move no money: help, balance, networks, banks, accounts,
// whitelist, transactions. Data in, Block Kit out; no I/O, no clock reads (callers pass `now`).
import type { ActionsBlock, KnownBlock, ModalView, SectionBlock } from '@slack/types';
import type { CngnEnvironment } from '../../cngn/api.js';
import {
  type BalanceEntry,
  type Bank,
  classifyStatus,
  type DedicatedAccount,
  type Network,
  type Pagination,
  type Transaction,
  type WhitelistedAddress,
} from '../../cngn/schemas.js';
import {
  environmentMarker,
  escapeText,
  explorerUrl,
  lagosTime,
  link,
  naira,
  receiverView,
  relative,
  shortHash,
  statusWord,
} from '../../format/display.js';
import type { SlackMessage } from './approval-message.js';

export const TX_PAGE_ACTION = 'tx.page';
const MAX_SECTION_TEXT = 2900;
const MAX_LINES = 40;

export interface HelpEntry {
  usage: string;
  summary: string;
}

const section = (text: string): SectionBlock => ({
  type: 'section',
  text: {
    type: 'mrkdwn',
    text: text.length > MAX_SECTION_TEXT ? `${text.slice(0, MAX_SECTION_TEXT)}…` : text,
  },
});

/** Every answer ends with where it came from: SANDBOX, TEST or LIVE. */
export function withEnvironment(
  message: SlackMessage,
  environment: CngnEnvironment,
  note?: string,
): SlackMessage {
  const marker = note ? `${environmentMarker(environment)} · ${note}` : environmentMarker(environment);
  return {
    text: message.text,
    blocks: [...message.blocks, { type: 'context', elements: [{ type: 'mrkdwn', text: marker }] }],
  };
}

/** Long lists are cut with a count of what was left out, inside Block Kit's limits. */
function listText(lines: string[], noun: string): string {
  const shown: string[] = [];
  let length = 0;
  for (const line of lines) {
    if (shown.length >= MAX_LINES || length + line.length + 1 > MAX_SECTION_TEXT - 60) break;
    shown.push(line);
    length += line.length + 1;
  }
  const hidden = lines.length - shown.length;
  return hidden > 0 ? `${shown.join('\n')}\n_…and ${hidden} more ${noun}_` : shown.join('\n');
}

export function helpMessage(entries: HelpEntry[], notice?: string): SlackMessage {
  const lines = entries.map((e) => `\`/cngn ${e.usage}\` — ${e.summary}`);
  const blocks: KnownBlock[] = [];
  if (notice) blocks.push(section(notice));
  blocks.push(section(`*cNGN treasury commands*\n${lines.join('\n')}`));
  blocks.push({
    type: 'context',
    elements: [
      { type: 'mrkdwn', text: 'No money moves until a second person approves it in the approvals channel.' },
    ],
  });
  return { text: notice ?? 'cNGN treasury commands', blocks };
}

export function balanceMessage(entries: BalanceEntry[], asOf: Date): SlackMessage {
  const at = lagosTime(asOf.toISOString()) ?? '';
  if (entries.length === 0) {
    return { text: 'No balance', blocks: [section(`*Balance*\nNo token balance yet (as of ${at}).`)] };
  }
  const lines = entries.map((e) => `*${escapeText(e.asset_code.toUpperCase())}*  ${naira(e.balance)}`);
  return {
    text: `Balance: ${entries.map((e) => `${e.asset_code} ${naira(e.balance)}`).join(', ')}`,
    blocks: [section(`*Balance*\n${lines.join('\n')}`), contextLine(`as of ${at}`)],
  };
}

const contextLine = (text: string): KnownBlock => ({ type: 'context', elements: [{ type: 'mrkdwn', text }] });

export function networksMessage(networks: Network[]): SlackMessage {
  const lines = networks.map(
    (n) =>
      `${n.isDisabled ? ':no_entry_sign:' : ':white_check_mark:'} *${escapeText(n.name)}* \`${escapeText(n.short_name || '—')}\`${n.isDisabled ? ' — disabled' : ''}`,
  );
  return {
    text: `${networks.length} networks`,
    blocks: [section(`*Supported networks*\n${listText(lines, 'networks') || 'None.'}`)],
  };
}

export function banksMessage(banks: Bank[], filter: string | undefined, total: number): SlackMessage {
  const title = filter
    ? `*Banks matching “${escapeText(filter)}”* (${banks.length} of ${total})`
    : `*Banks* (${total})`;
  const lines = banks.map((b) => `${escapeText(b.name)} — code \`${escapeText(b.code)}\``);
  const body = lines.length
    ? listText(lines, 'banks — narrow it with `/cngn banks <name>`')
    : 'No bank matches.';
  return { text: `${banks.length} banks`, blocks: [section(`${title}\n${body}`)] };
}

export function accountsMessage(accounts: DedicatedAccount[]): SlackMessage {
  if (accounts.length === 0) {
    return {
      text: 'No dedicated accounts',
      blocks: [section('No dedicated virtual account is set up yet.')],
    };
  }
  const lines = accounts.map(
    (a) =>
      `*${escapeText(a.accountNumber)}* · ${escapeText(a.bankName)}${a.bankCode ? ` (${escapeText(a.bankCode)})` : ''}\n${escapeText(a.accountName)}`,
  );
  return {
    text: `${accounts.length} dedicated accounts`,
    blocks: [
      section(`*Dedicated virtual accounts* — Naira paid in here is credited as cNGN\n${lines.join('\n\n')}`),
    ],
  };
}

export function whitelistMessage(addresses: WhitelistedAddress[], networks: Network[]): SlackMessage {
  if (addresses.length === 0) {
    return {
      text: 'No whitelisted addresses',
      blocks: [section('No address is whitelisted yet. Add one with `/cngn whitelist add`.')],
    };
  }
  const nameOf = (a: WhitelistedAddress) =>
    a.network?.name ?? networks.find((n) => n.id === a.networkId)?.name ?? 'Unknown network';
  const lines = addresses.map((a) => `\`${escapeText(a.publicKey)}\` on *${escapeText(nameOf(a))}*`);
  return {
    text: `${addresses.length} whitelisted addresses`,
    blocks: [section(`*Whitelisted addresses*\n${listText(lines, 'addresses')}`)],
  };
}

const STATUS_EMOJI = {
  succeeded: ':white_check_mark:',
  failed: ':x:',
  pending: ':hourglass_flowing_sand:',
  unknown: ':grey_question:',
};

/** `:white_check_mark: completed` for the open status vocabulary. */
export function statusLabel(status: string | null | undefined): string {
  return `${STATUS_EMOJI[classifyStatus(status)]} ${escapeText(statusWord(status))}`;
}

const TYPE_WORDS: Record<string, string> = {
  fiat_buy: 'Deposit (Naira)',
  deposit: 'Deposit',
  crypto_deposit: 'Deposit (on-chain)',
  enaira_buy: 'Deposit (eNaira)',
  withdraw: 'Withdrawal',
  withdrawal: 'Withdrawal',
  fiat_redeem: 'Redemption',
  redeem: 'Redemption',
  enaira_redeem: 'Redemption (eNaira)',
  swap: 'Bridge',
};

export function typeWord(type: string | null | undefined): string {
  if (!type) return 'Transaction';
  return TYPE_WORDS[type.toLowerCase()] ?? type.replace(/_/g, ' ');
}

function receiverText(tx: Transaction): string {
  const r = receiverView(tx.receiver);
  if (r.address) return `\`${escapeText(r.address)}\``;
  if (r.accountNumber) {
    const bank = r.bankName ?? (r.bankCode ? `bank ${r.bankCode}` : 'bank');
    return `${escapeText(bank)} · ${escapeText(r.accountNumber)}${r.accountName ? ` · ${escapeText(r.accountName)}` : ''}`;
  }
  return r.text ? escapeText(r.text) : '—';
}

export function txListMessage(
  transactions: Transaction[],
  pagination: Pagination | null,
  page: number,
  now: Date,
): SlackMessage {
  const lines = transactions.map((tx) => {
    const when = tx.createdAt ? relative(tx.createdAt, now) : '';
    return `${STATUS_EMOJI[classifyStatus(tx.status)]} *${naira(tx.amount)}* ${typeWord(tx.trx_type)} · \`${escapeText(tx.trx_ref)}\` · ${when}`;
  });
  const blocks: KnownBlock[] = [
    section(
      `*Recent transactions* — page ${page}${pagination ? ` of ${Math.max(pagination.pages, 1)}` : ''}\n${lines.join('\n') || 'No transactions yet.'}`,
    ),
    contextLine('Details: `/cngn tx <reference>`'),
  ];
  const buttons: ActionsBlock['elements'] = [];
  const previous = pagination ? pagination.previousPage : page > 1 ? page - 1 : null;
  const next = pagination ? (pagination.isLastPage ? null : (pagination.nextPage ?? page + 1)) : null;
  if (previous) {
    buttons.push({
      type: 'button',
      action_id: `${TX_PAGE_ACTION}.previous`,
      text: { type: 'plain_text', text: '← Previous' },
      value: String(previous),
    });
  }
  if (next) {
    buttons.push({
      type: 'button',
      action_id: `${TX_PAGE_ACTION}.next`,
      text: { type: 'plain_text', text: 'Next →' },
      value: String(next),
    });
  }
  if (buttons.length) blocks.push({ type: 'actions', block_id: TX_PAGE_ACTION, elements: buttons });
  return { text: `Recent transactions, page ${page}`, blocks };
}

export function txDetailMessage(tx: Transaction, environment: CngnEnvironment): SlackMessage {
  const hash = (label: string, value: string | null | undefined) => {
    if (!value) return `*${label}*\n—`;
    const url = explorerUrl(value, tx.explorer_link, tx.network, environment);
    return `*${label}*\n${url ? link(url, shortHash(value)) : `\`${escapeText(shortHash(value))}\``}`;
  };
  const fields = [
    `*Status*\n${statusLabel(tx.status)}`,
    `*Type*\n${typeWord(tx.trx_type)}`,
    `*Amount*\n${naira(tx.amount)}${tx.asset_symbol ? ` ${escapeText(tx.asset_symbol)}` : ''}`,
    `*Network*\n${tx.network ? escapeText(tx.network) : '—'}`,
    `*Receiver*\n${receiverText(tx)}`,
    `*Created*\n${lagosTime(tx.createdAt) ?? '—'}`,
    hash(tx.trx_type === 'crypto_deposit' ? 'Mint hash' : 'Origin hash', tx.base_trx_hash),
    hash(tx.trx_type === 'crypto_deposit' ? 'Source hash' : 'Destination hash', tx.extl_trx_hash),
  ];
  const blocks: KnownBlock[] = [
    section(`*${typeWord(tx.trx_type)}* \`${escapeText(tx.trx_ref)}\``),
    { type: 'section', fields: fields.map((text) => ({ type: 'mrkdwn' as const, text })) },
  ];
  if (tx.explorer_link) blocks.push(contextLine(link(tx.explorer_link, 'Open in block explorer')));
  if (tx.description) blocks.push(contextLine(escapeText(tx.description)));
  return { text: `${typeWord(tx.trx_type)} ${tx.trx_ref}: ${statusWord(tx.status)}`, blocks };
}

const plainText = (text: string) => ({ type: 'plain_text' as const, text: text.slice(0, 24) });

/** The modal opened at once (Slack's trigger_id lives 3 s) while the form's data is read. */
export function loadingView(environment: string): ModalView {
  return {
    type: 'modal',
    title: plainText('One moment'),
    close: plainText('Cancel'),
    blocks: [section(':hourglass_flowing_sand: Loading the form…'), contextLine(environment)],
  };
}

/** The loading modal, replaced when the form's data could not be read. */
export function formErrorView(text: string, environment: string): ModalView {
  return {
    type: 'modal',
    title: plainText('Could not open the form'),
    close: plainText('Close'),
    blocks: [section(`:warning: ${text}`), contextLine(environment)],
  };
}

export function errorMessage(text: string): SlackMessage {
  return { text, blocks: [section(`:warning: ${text}`)] };
}

export function noticeMessage(text: string): SlackMessage {
  return { text, blocks: [section(text)] };
}
