// Plain-JSON control routes under /sandbox/ for demos and other tools (loopback only, no key):
// pay a temporary account, simulate an on-chain deposit, settle everything now, make the next
// redemption fail, peek at the books.
import { z } from 'zod';
import { formatIssues } from './rules.js';
import type { SandboxState } from './state.js';
import type { Timeline } from './timeline.js';

export interface ControlAnswer {
  status: number;
  body: unknown;
}

const payBody = z.strictObject({ amount: z.union([z.string(), z.number()]).optional() });
const cryptoDepositBody = z.strictObject({
  amount: z.union([z.string(), z.number()]),
  network: z.string().optional(),
});

function parseJson(raw: string): unknown {
  if (!raw.trim()) return {};
  return JSON.parse(raw);
}

interface ControlRoute {
  method: 'GET' | 'POST';
  path: RegExp;
  answer(
    match: RegExpExecArray,
    raw: string,
    timeline: Timeline,
    state: SandboxState,
  ): Promise<ControlAnswer>;
}

const CONTROL_ROUTES: ControlRoute[] = [
  {
    method: 'POST',
    path: /^\/sandbox\/pay\/([^/]+)\/?$/,
    async answer(match, raw, timeline, state) {
      const parsed = payBody.safeParse(parseJson(raw));
      if (!parsed.success) return { status: 400, body: { error: formatIssues(parsed.error) } };
      const amount = parsed.data.amount === undefined ? undefined : String(parsed.data.amount);
      await timeline.payTemporaryAccount(decodeURIComponent(match[1]!), amount);
      return { status: 200, body: { ok: true, balance: state.balance.toString() } };
    },
  },
  {
    method: 'POST',
    path: /^\/sandbox\/crypto-deposit\/?$/,
    async answer(_match, raw, timeline, state) {
      const parsed = cryptoDepositBody.safeParse(parseJson(raw));
      if (!parsed.success) return { status: 400, body: { error: formatIssues(parsed.error) } };
      const { trx_ref } = await timeline.simulateCryptoDeposit({
        amount: String(parsed.data.amount),
        ...(parsed.data.network ? { network: parsed.data.network } : {}),
      });
      return { status: 200, body: { ok: true, trx_ref, balance: state.balance.toString() } };
    },
  },
  {
    method: 'POST',
    path: /^\/sandbox\/settle\/?$/,
    async answer(_match, _raw, timeline, state) {
      await timeline.settleAll();
      return { status: 200, body: { ok: true, balance: state.balance.toString() } };
    },
  },
  {
    method: 'POST',
    path: /^\/sandbox\/fail-next-redemption\/?$/,
    async answer(_match, _raw, _timeline, state) {
      state.failNextRedemption = true;
      return { status: 200, body: { ok: true } };
    },
  },
  {
    method: 'GET',
    path: /^\/sandbox\/state\/?$/,
    async answer(_match, _raw, _timeline, state) {
      return {
        status: 200,
        body: {
          balance: state.balance.toString(),
          pending: [...state.plans.keys()],
          failNextRedemption: state.failNextRedemption,
          temporaryAccounts: [...state.temporaryAccounts.values()].map((a) => a.view),
        },
      };
    },
  },
];

export async function handleControl(
  method: string,
  pathname: string,
  raw: string,
  timeline: Timeline,
  state: SandboxState,
): Promise<ControlAnswer> {
  try {
    for (const route of CONTROL_ROUTES) {
      const match = method === route.method ? route.path.exec(pathname) : null;
      if (match) return await route.answer(match, raw, timeline, state);
    }
    return { status: 404, body: { error: 'Unknown sandbox control route' } };
  } catch (error) {
    return { status: 400, body: { error: error instanceof Error ? error.message : String(error) } };
  }
}
