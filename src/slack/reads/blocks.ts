// Pure builders for the answers that move no money: help, balance, networks, banks, accounts,
// whitelist, transactions. Data in, Block Kit out; no I/O, no clock reads (callers pass `now`).
import type { ActionsBlock, KnownBlock } from '@slack/types';
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
  lagosTime,
  lagosTimeOfDay,
  naira,
  outsideLagosTime,
  outsideRelative,
  receiverView,
  shortHash,
  statusWord,
} from '../../format/display.js';
import { shortAddress } from '../../format/evm-address.js';
import { addressExplorerUrl, explorerUrl } from '../../format/explorer.js';
import { escapeMrkdwn, explorerLink, inertUrl } from '../../format/mrkdwn.js';
import type { SlackMessage } from '../types.js';
import { contextLine, fitBlocks, MAX_SECTION_TEXT, section } from '../ui/messages.js';

export const TX_PAGE_ACTION = 'tx.page';
/** Every page button of the transaction list (`tx.page.previous`, `tx.page.next`). */
export const TX_PAGE_ACTIONS = /^tx\.page\./;
const MAX_LINES = 40;

/**
 * Long lists are cut at a whole entry with an exact count of what was left out, inside Block Kit's
 * limits (`room` is what the caller puts around the list in the same section).
 */
function listText(
  lines: string[],
  noun: string,
  options: { separator?: string; room?: number } = {},
): string {
  const separator = options.separator ?? '\n';
  const budget = MAX_SECTION_TEXT - 60 - (options.room ?? 0);
  const shown: string[] = [];
  let length = 0;
  for (const line of lines) {
    if (shown.length >= MAX_LINES || length + line.length + separator.length > budget) break;
    shown.push(line);
    length += line.length + separator.length;
  }
  const hidden = lines.length - shown.length;
  const list = shown.join(separator);
  return hidden > 0 ? `${list}${separator}_…and ${hidden} more ${noun}_` : list;
}

/** "as of 10:26 WAT" when read today (Lagos), with the date when `now` is not given or another day. */
export function balanceMessage(entries: BalanceEntry[], asOf: Date, now?: Date): SlackMessage {
  const at = now ? lagosTimeOfDay(asOf, now) : lagosTime(asOf);
  if (entries.length === 0) {
    return { text: 'No balance', blocks: [section(`*Balance*\nNo token balance yet (as of ${at}).`)] };
  }
  const lines = entries.map(
    (e) => `*${escapeMrkdwn(e.asset_code.toUpperCase())}*  ${escapeMrkdwn(naira(e.balance))}`,
  );
  return {
    text: escapeMrkdwn(`Balance: ${entries.map((e) => `${e.asset_code} ${naira(e.balance)}`).join(', ')}`),
    blocks: [section(`*Balance*\n${lines.join('\n')}`), contextLine(`as of ${at}`)],
  };
}

export function networksMessage(networks: Network[]): SlackMessage {
  const lines = networks.map(
    (n) =>
      `${n.isDisabled ? ':no_entry_sign:' : ':white_check_mark:'} *${escapeMrkdwn(n.name)}* \`${escapeMrkdwn(n.short_name || '—')}\`${n.isDisabled ? ' — disabled' : ''}`,
  );
  return {
    text: `${networks.length} networks`,
    blocks: [section(`*Supported networks*\n${listText(lines, 'networks') || 'None.'}`)],
  };
}

export function banksMessage(banks: Bank[], filter: string | undefined, total: number): SlackMessage {
  const title = filter
    ? `*Banks matching “${escapeMrkdwn(filter)}”* (${banks.length} of ${total})`
    : `*Banks* (${total})`;
  const lines = banks.map((b) => `${escapeMrkdwn(b.name)} — code \`${escapeMrkdwn(b.code)}\``);
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
      `*${escapeMrkdwn(a.accountNumber)}* · ${escapeMrkdwn(a.bankName)}${a.bankCode ? ` (${escapeMrkdwn(a.bankCode)})` : ''}\n${escapeMrkdwn(a.accountName)}`,
  );
  const title = '*Dedicated virtual accounts* — Naira paid in here is credited as cNGN';
  return {
    text: `${accounts.length} dedicated accounts`,
    blocks: [section(`${title}\n${listText(lines, 'accounts', { separator: '\n\n', room: title.length })}`)],
  };
}

/** A network named by id, name or short code, from the (cached) list. */
function networkNamed(networks: Network[], word: string | null | undefined): Network | undefined {
  if (!word) return undefined;
  const w = word.toLowerCase();
  return networks.find(
    (n) => n.id === word || n.short_name.toLowerCase() === w || n.name.toLowerCase() === w,
  );
}

/** A shortened address linked to its explorer page, or the whole address when there is no explorer. */
function addressLink(address: string, url: string | undefined): string {
  return explorerLink(url, shortAddress(address)) ?? `\`${escapeMrkdwn(address)}\``;
}

/**
 * Whitelisted addresses with their network names; each shortened and linked to an explorer where
 * the network has one, with the whole address below it to copy.
 */
export function whitelistMessage(
  addresses: WhitelistedAddress[],
  networks: Network[],
  environment?: CngnEnvironment,
): SlackMessage {
  if (addresses.length === 0) {
    return {
      text: 'No whitelisted addresses',
      blocks: [section('No address is whitelisted yet. Add one with `/cngn whitelist add`.')],
    };
  }
  const lines = addresses.map((a) => {
    const network = networkNamed(networks, a.networkId);
    const name = a.network?.name ?? network?.name ?? 'Unknown network';
    const code = a.network?.short_name ?? network?.short_name;
    const url = environment ? addressExplorerUrl(a.publicKey, undefined, code, environment) : undefined;
    const shown = addressLink(a.publicKey, url);
    return url
      ? `*${escapeMrkdwn(name)}* · ${shown}\n\`${escapeMrkdwn(a.publicKey)}\``
      : `${shown} on *${escapeMrkdwn(name)}*`;
  });
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
  return `${STATUS_EMOJI[classifyStatus(status)]} ${escapeMrkdwn(statusWord(status))}`;
}

// Keyed by the service's text: a Map, where `constructor` finds nothing.
const TYPE_WORDS = new Map<string, string>([
  ['fiat_buy', 'Deposit (Naira)'],
  ['deposit', 'Deposit'],
  ['crypto_deposit', 'Deposit (on-chain)'],
  ['enaira_buy', 'Deposit (eNaira)'],
  ['withdraw', 'Withdrawal'],
  ['withdrawal', 'Withdrawal'],
  ['fiat_redeem', 'Redemption'],
  ['redeem', 'Redemption'],
  ['enaira_redeem', 'Redemption (eNaira)'],
  ['swap', 'Bridge'],
]);

export function typeWord(type: string | null | undefined): string {
  if (!type) return 'Transaction';
  return TYPE_WORDS.get(type.toLowerCase()) ?? type.replace(/_/g, ' ');
}

function receiverText(tx: Transaction, addressUrl: string | undefined): string {
  const r = receiverView(tx.receiver);
  if (r.address) return addressLink(r.address, addressUrl);
  if (r.accountNumber) {
    const bank = r.bankName ?? (r.bankCode ? `bank ${r.bankCode}` : 'bank');
    return `${escapeMrkdwn(bank)} · ${escapeMrkdwn(r.accountNumber)}${r.accountName ? ` · ${escapeMrkdwn(r.accountName)}` : ''}`;
  }
  return r.text ? escapeMrkdwn(r.text) : '—';
}

export function txListMessage(
  transactions: Transaction[],
  pagination: Pagination | null,
  page: number,
  now: Date,
): SlackMessage {
  const lines = transactions.map((tx) => {
    const when = tx.createdAt ? outsideRelative(tx.createdAt, now) : '';
    return `${STATUS_EMOJI[classifyStatus(tx.status)]} *${escapeMrkdwn(naira(tx.amount))}* ${escapeMrkdwn(typeWord(tx.trx_type))} · \`${escapeMrkdwn(tx.trx_ref)}\` · ${when}`;
  });
  const blocks: KnownBlock[] = [
    section(
      `*Recent transactions* — page ${page}${pagination ? ` of ${Math.max(pagination.pages, 1)}` : ''}\n${lines.join('\n') || 'No transactions yet.'}`,
    ),
    contextLine('Details: `/cngn tx &lt;reference&gt;`'),
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

/**
 * One transaction in full. The network is named from the cached list (its code when unknown); the
 * receiver address is shortened and linked, and shown whole below to copy.
 */
export function txDetailMessage(
  tx: Transaction,
  environment: CngnEnvironment,
  networks: Network[] = [],
): SlackMessage {
  const network = networkNamed(networks, tx.network);
  const explorerNetwork = network?.short_name ?? tx.network;
  const hash = (label: string, value: string | null | undefined) => {
    if (!value) return `*${label}*\n—`;
    const url = explorerUrl(value, tx.explorer_link, explorerNetwork, environment);
    return `*${label}*\n${explorerLink(url, shortHash(value)) ?? `\`${escapeMrkdwn(shortHash(value))}\``}`;
  };
  const receiverAddress = receiverView(tx.receiver).address;
  const receiverUrl = receiverAddress
    ? addressExplorerUrl(receiverAddress, tx.explorer_link, explorerNetwork, environment)
    : undefined;
  const fields = [
    `*Status*\n${statusLabel(tx.status)}`,
    `*Type*\n${escapeMrkdwn(typeWord(tx.trx_type))}`,
    `*Amount*\n${escapeMrkdwn(naira(tx.amount))}${tx.asset_symbol ? ` ${escapeMrkdwn(tx.asset_symbol)}` : ''}`,
    `*Network*\n${network ? escapeMrkdwn(network.name) : tx.network ? escapeMrkdwn(tx.network) : '—'}`,
    `*Receiver*\n${receiverText(tx, receiverUrl)}`,
    `*Created*\n${escapeMrkdwn(outsideLagosTime(tx.createdAt) ?? tx.createdAt ?? '—')}`,
    hash(tx.trx_type === 'crypto_deposit' ? 'Mint hash' : 'Origin hash', tx.base_trx_hash),
    hash(tx.trx_type === 'crypto_deposit' ? 'Source hash' : 'Destination hash', tx.extl_trx_hash),
  ];
  const blocks: KnownBlock[] = [
    section(`*${escapeMrkdwn(typeWord(tx.trx_type))}* \`${escapeMrkdwn(tx.trx_ref)}\``),
    { type: 'section', fields: fields.map((text) => ({ type: 'mrkdwn' as const, text })) },
  ];
  if (receiverAddress && receiverUrl) {
    blocks.push(contextLine(`Receiver address \`${escapeMrkdwn(receiverAddress)}\``));
  }
  if (tx.explorer_link) {
    const own = explorerLink(tx.explorer_link, 'Open in block explorer');
    blocks.push(contextLine(own ?? `Explorer link (not a known explorer): ${inertUrl(tx.explorer_link)}`));
  }
  if (tx.description) blocks.push(contextLine(escapeMrkdwn(tx.description)));
  return {
    text: escapeMrkdwn(`${typeWord(tx.trx_type)} ${tx.trx_ref}: ${statusWord(tx.status)}`),
    blocks: fitBlocks(blocks),
  };
}
