// The 16 routes of the service under /v1/api: which need a permission, which take an encrypted body,
// and what each answers (in plain form; server.ts seals `data`).
import { BANKS, DEDICATED_ACCOUNTS, networkView } from './catalog.js';
import { createTemporaryAccount } from './deposits.js';
import { bridge, quote, redeem, updateSettlement, verifyAccount, withdraw } from './outgoing.js';
import {
  accountVerifyBody,
  badRequest,
  bankAccountBody,
  bridgeBody,
  bridgeQuoteBody,
  queryBoolean,
  queryInteger,
  redeemBody,
  temporaryAccountBody,
  validate,
  whitelistBody,
  withdrawBody,
} from './rules.js';
import type { SandboxState } from './state.js';
import type { Timeline } from './timeline.js';
import type { Permission } from './types.js';
import { addWhitelist, whitelistView } from './whitelist.js';

interface RouteContext {
  state: SandboxState;
  timeline: Timeline;
  params: string[];
  query: URLSearchParams;
  body: unknown;
}

interface RouteResult {
  message: string;
  data: unknown;
}

export interface Route {
  method: 'GET' | 'POST' | 'PUT';
  pattern: RegExp;
  encrypted: boolean;
  permission?: Permission;
  handle(context: RouteContext): RouteResult;
}

const path = (tail: string) => new RegExp(`^/v1/api/${tail}/?$`);
const PARAM = '([^/]+)';

const ROUTES: Route[] = [
  {
    method: 'GET',
    pattern: path('balance'),
    encrypted: false,
    handle: ({ state }) => ({
      message: 'Balance fetched successfully',
      data: [{ asset_type: 'credit_alphanum4', asset_code: 'CNGN', balance: state.balance.toString() }],
    }),
  },
  {
    method: 'GET',
    pattern: path('networks'),
    encrypted: false,
    handle: ({ state, query }) => ({
      message: 'Networks fetched successfully',
      data: state.networks.map((n) => networkView(n, queryBoolean(query.get('includeBlockchain')))),
    }),
  },
  {
    method: 'GET',
    pattern: path('banks'),
    encrypted: false,
    handle: () => ({ message: 'Banks fetched successfully', data: BANKS.map((bank) => ({ ...bank })) }),
  },
  {
    method: 'GET',
    pattern: path('transactions'),
    encrypted: false,
    handle: ({ state, query }) => {
      const page = queryInteger(query.get('page'), 'page', 1, 100_000);
      const limit = queryInteger(query.get('limit'), 'limit', 10, 1000);
      return { message: 'Transactions fetched successfully', data: state.transactionsPage(page, limit) };
    },
  },
  {
    method: 'GET',
    pattern: path(`transactions/${PARAM}`),
    encrypted: false,
    handle: ({ state, params }) => {
      const tx = state.find(params[0] ?? '');
      if (!tx) throw badRequest('Transaction not found.');
      return { message: 'Transaction fetched successfully', data: tx };
    },
  },
  {
    method: 'GET',
    pattern: path(`withdraw/verify/${PARAM}`),
    encrypted: false,
    handle: ({ state, params }) => {
      const tx = state.find(params[0] ?? '');
      if (!tx) throw badRequest('Transaction not found');
      return { message: 'Transaction fetched successfully', data: tx };
    },
  },
  {
    method: 'GET',
    pattern: path('virtual-account'),
    encrypted: false,
    permission: 'fiatDeposit',
    handle: () => ({
      message: 'Virtual account fetched successfully',
      data: DEDICATED_ACCOUNTS.map((account) => ({ ...account })),
    }),
  },
  {
    method: 'POST',
    pattern: path('virtual-account/temporary'),
    encrypted: true,
    permission: 'fiatDeposit',
    handle: ({ state, body }) => ({
      message: 'Temporary virtual account created successfully',
      data: createTemporaryAccount(state, validate(temporaryAccountBody, body)),
    }),
  },
  {
    method: 'GET',
    pattern: path('whitelisted'),
    encrypted: false,
    handle: ({ state, query }) => ({
      message: 'Whitelisted addresses fetched successfully',
      data: whitelistView(state, queryBoolean(query.get('includeNetwork'))),
    }),
  },
  {
    method: 'POST',
    pattern: path('whitelist'),
    encrypted: true,
    handle: ({ state, body }) => ({
      message: 'Address whitelisted successfully',
      data: addWhitelist(state, validate(whitelistBody, body)),
    }),
  },
  {
    method: 'POST',
    pattern: path('withdraw'),
    encrypted: true,
    permission: 'sendCrypto',
    handle: ({ state, timeline, body }) => {
      const { tx, result } = withdraw(state, validate(withdrawBody, body));
      timeline.track(tx);
      return { message: 'Withdrawal was successfully', data: result };
    },
  },
  {
    method: 'POST',
    pattern: path('redeemAsset'),
    encrypted: true,
    permission: 'redeem',
    handle: ({ state, timeline, body }) => {
      const { tx, result } = redeem(state, validate(redeemBody, body));
      timeline.track(tx);
      return { message: 'Redemption initiated successfully', data: result };
    },
  },
  {
    method: 'PUT',
    pattern: path('bank-account'),
    encrypted: true,
    handle: ({ state, body }) => ({
      message: 'Bank account updated successfully',
      data: updateSettlement(state, validate(bankAccountBody, body)),
    }),
  },
  {
    method: 'POST',
    pattern: path('account/verify'),
    encrypted: true,
    handle: ({ state, body }) => {
      const { accountNumber, bankCode } = validate(accountVerifyBody, body);
      return {
        message: 'Account verified successfully',
        data: verifyAccount(state, accountNumber, bankCode).view,
      };
    },
  },
  {
    method: 'POST',
    pattern: path('bridge-quote'),
    encrypted: true,
    permission: 'swap',
    handle: ({ state, body }) => ({
      message: 'Quote fetched successfully',
      data: quote(state, validate(bridgeQuoteBody, body)),
    }),
  },
  {
    method: 'POST',
    pattern: path('bridge'),
    encrypted: true,
    permission: 'swap',
    handle: ({ state, timeline, body }) => {
      const { tx, result } = bridge(state, validate(bridgeBody, body));
      timeline.track(tx);
      return { message: 'Swap was successfully', data: result };
    },
  },
];

export function matchRoute(method: string, pathname: string): { route: Route; params: string[] } | undefined {
  for (const route of ROUTES) {
    if (route.method !== method) continue;
    const match = route.pattern.exec(pathname);
    if (match) {
      const params = match.slice(1).map((p) => {
        try {
          return decodeURIComponent(p);
        } catch {
          return p;
        }
      });
      return { route, params };
    }
  }
  return undefined;
}
