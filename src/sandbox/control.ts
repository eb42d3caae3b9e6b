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

export async function handleControl(
  method: string,
  pathname: string,
  raw: string,
  timeline: Timeline,
  state: SandboxState,
): Promise<ControlAnswer> {
  try {
    const pay = /^\/sandbox\/pay\/([^/]+)\/?$/.exec(pathname);
    if (method === 'POST' && pay?.[1]) {
      const parsed = payBody.safeParse(parseJson(raw));
      if (!parsed.success) return { status: 400, body: { error: formatIssues(parsed.error) } };
      const amount = parsed.data.amount === undefined ? undefined : String(parsed.data.amount);
      await timeline.payTemporaryAccount(decodeURIComponent(pay[1]), amount);
      return { status: 200, body: { ok: true, balance: state.balance.toString() } };
    }
    if (method === 'POST' && /^\/sandbox\/crypto-deposit\/?$/.test(pathname)) {
      const parsed = cryptoDepositBody.safeParse(parseJson(raw));
      if (!parsed.success) return { status: 400, body: { error: formatIssues(parsed.error) } };
      const { trx_ref } = await timeline.simulateCryptoDeposit({
        amount: String(parsed.data.amount),
        ...(parsed.data.network ? { network: parsed.data.network } : {}),
      });
      return { status: 200, body: { ok: true, trx_ref, balance: state.balance.toString() } };
    }
    if (method === 'POST' && /^\/sandbox\/settle\/?$/.test(pathname)) {
      await timeline.settleAll();
      return { status: 200, body: { ok: true, balance: state.balance.toString() } };
    }
    if (method === 'POST' && /^\/sandbox\/fail-next-redemption\/?$/.test(pathname)) {
      state.failNextRedemption = true;
      return { status: 200, body: { ok: true } };
    }
    if (method === 'GET' && /^\/sandbox\/state\/?$/.test(pathname)) {
      return {
        status: 200,
        body: {
          balance: state.balance.toString(),
          pending: [...state.plans.keys()],
          failNextRedemption: state.failNextRedemption,
          temporaryAccounts: [...state.temporaryAccounts.values()].map((a) => a.view),
        },
      };
    }
    return { status: 404, body: { error: 'Unknown sandbox control route' } };
  } catch (error) {
    return { status: 400, body: { error: error instanceof Error ? error.message : String(error) } };
  }
}
