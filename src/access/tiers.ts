// How many distinct approvals an amount needs: the tiers of CNGN_APPROVAL_TIERS (`0:1,1000000:2`).
import { Money } from '../format/money.js';
import type { RequestKind } from './kinds.js';

export interface ApprovalTier {
  /** Amounts at or above this need `approvals` distinct approvals. */
  min: Money;
  approvals: number;
}

/** `0:1,1000000:2` → tiers, sorted by amount. Throws on anything else. */
export function parseTiers(text: string): ApprovalTier[] {
  const tiers = text
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part) => {
      const match = /^([\d.]+)\s*:\s*(\d+)$/.exec(part);
      if (!match) throw new Error(`"${part}" is not amount:approvals`);
      const approvals = Number(match[2]);
      if (approvals < 1) throw new Error(`"${part}" needs at least 1 approval`);
      return { min: Money.parse(match[1] ?? ''), approvals };
    });
  if (tiers.length === 0) throw new Error('no tiers given');
  return tiers.sort((a, b) => a.min.compare(b.min));
}

/**
 * Approvals needed for a request. Whitelist additions carry no amount and use the lowest tier. A
 * settlement-account change reroutes all future fiat payouts, so it needs as many as the top tier.
 */
export function requiredApprovals(
  tiers: readonly ApprovalTier[],
  amount: Money | undefined,
  kind?: RequestKind,
): number {
  // A passkey registration takes one approver besides its owner, whatever the tiers say.
  if (kind === 'passkey') return 1;
  if (kind === 'settlement') return Math.max(1, ...tiers.map((tier) => tier.approvals));
  if (!amount) return Math.max(tiers[0]?.approvals ?? 1, 1);
  let needed = 1;
  for (const band of amountBands(tiers)) if (amount.compare(band.min) >= 0) needed = band.approvals;
  return Math.max(needed, 1);
}

/**
 * The bands of amount the tiers make, from ₦0 up, each running to the next one's `min`: amounts below
 * a lowest tier above ₦0 need one approval, so that band comes first; of two tiers from one amount the
 * later counts; a tier asking as many approvals as the band before it extends that band. What
 * `requiredApprovals` counts with, and what `/cngn policy` and the audit's words show.
 */
export function amountBands(tiers: readonly ApprovalTier[]): ApprovalTier[] {
  // parseTiers sorts them; tiers made otherwise are sorted the same way (stable: equal amounts keep
  // their order, so the later still counts).
  const sorted = [...tiers].sort((a, b) => a.min.compare(b.min));
  const from = sorted[0]?.min.isPositive() ? [{ min: Money.zero(), approvals: 1 }, ...sorted] : sorted;
  const bands: ApprovalTier[] = [];
  for (const tier of from) {
    if (bands.at(-1)?.min.compare(tier.min) === 0) bands.pop();
    if (bands.at(-1)?.approvals !== tier.approvals) bands.push(tier);
  }
  return bands;
}
