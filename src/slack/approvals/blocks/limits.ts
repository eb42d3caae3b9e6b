// The limits over time in words: which total chose a request's tier, a daily-limit refusal's figures,
// and the limits as set with their use now (/cngn policy, App Home). Pure, and made only of the bot's
// own words, amounts and mentions, so it reads the same as plain text and as mrkdwn.
import type { KnownBlock } from '@slack/types';
import type { ApprovalRequest, LimitFigures, LimitUse } from '../../../approvals/index.js';
import { naira } from '../../../format/display.js';
import { mentionUser } from '../../../format/mrkdwn.js';

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
const MINUTE_MS = 60_000;
const SECOND_MS = 1000;

/**
 * `24 h`, `7 days`, `1 h 30 min`, `1 min 30 s`: a window as people say it (whole days from two days
 * up), exact to the second, as CNGN_LIMIT_WINDOW may be set in seconds: never rounded to a window the
 * bot does not count over.
 */
export function windowWords(ms: number): string {
  if (ms >= 2 * DAY_MS && ms % DAY_MS === 0) return `${ms / DAY_MS} days`;
  const seconds = Math.round(ms / SECOND_MS);
  const hours = Math.floor(seconds / (HOUR_MS / SECOND_MS));
  const minutes = Math.floor((seconds % (HOUR_MS / SECOND_MS)) / (MINUTE_MS / SECOND_MS));
  const rest = seconds % (MINUTE_MS / SECOND_MS);
  const parts = [
    ...(hours ? [`${hours} h`] : []),
    ...(minutes ? [`${minutes} min`] : []),
    ...(rest ? [`${rest} s`] : []),
  ];
  return parts.length ? parts.join(' ') : '0 min';
}

/**
 * `₦1,200,000.00 from @Ada in the last 24 h, including this`: the total that chose the request's
 * tier, when it was not the amount itself; undefined when the amount did.
 */
function tierBasisText(request: ApprovalRequest): string | undefined {
  const basis = request.tierBasis;
  if (!basis) return undefined;
  const whose = basis.by === 'requester' ? `from ${mentionUser(request.requester)}` : 'to this destination';
  return `${naira(basis.total)} ${whose} in the last ${windowWords(basis.windowMs)}, including this`;
}

/**
 * `:chart_with_upwards_trend: 2 approvals needed for …`: which total chose the approvals needed; none
 * when the amount did. The tier's own count: a look-alike destination's extra approver (added at
 * filing) is named apart.
 */
export function tierBasisLine(request: ApprovalRequest): string | undefined {
  const text = tierBasisText(request);
  if (!text) return undefined;
  const lookAlikeMark = request.preflight?.lookAlike;
  const extra = lookAlikeMark && lookAlikeMark.extra !== false ? 1 : 0;
  const tier = request.requiredApprovals - extra;
  const needed = `${tier} approval${tier === 1 ? '' : 's'}`;
  const lookAlike = extra
    ? `; +${extra} for the look-alike address: ${request.requiredApprovals} in all`
    : '';
  return `:chart_with_upwards_trend: ${needed} needed for ${text}${lookAlike}`;
}

/** The tier line as one short block under the figures; none when the amount chose the tier. */
export function tierBasisNotice(request: ApprovalRequest): KnownBlock[] {
  const text = tierBasisLine(request);
  return text ? [{ type: 'context', elements: [{ type: 'mrkdwn', text }] }] : [];
}

/**
 * The figures of a daily-limit refusal: at filing, `₦4,000,000.00 already sent, on the way, waiting or
 * unresolved in the last 24 h; the daily limit is ₦5,000,000.00; this ₦1,500,000.00 would pass it`;
 * at a final approval, what is already approved or sent.
 */
export function dailyLimitText(figures: LimitFigures): string {
  const already =
    figures.stage === 'filing'
      ? 'already sent, on the way, waiting or unresolved'
      : 'already approved or sent';
  return `${naira(figures.used)} ${already} in the last ${windowWords(figures.windowMs)}; the daily limit is ${naira(figures.limit)}; this ${naira(figures.amount)} would pass it`;
}

/** The limits for `/cngn policy`: how totals set the approvals, and the daily limit with its use now. */
export function limitsPolicyText(use: LimitUse): string {
  const window = windowWords(use.windowMs);
  const tiers = `*Totals over time*: a withdrawal, redemption or bridge needs the approvals of the largest of its amount, its requester's total and its destination's total in the last ${window}, each including it (rejected, cancelled, expired and unsent failed requests do not count).`;
  return `${tiers}\n*Daily limit*: ${dailyLimitUse(use)}`;
}

/** `₦4,000,000.00 of ₦5,000,000.00 approved or sent in the last 24 h; ₦1,000,000.00 more waiting for approval`. */
function dailyLimitUse(use: LimitUse): string {
  const window = windowWords(use.windowMs);
  if (!use.dailyLimit) return `none (totals over the last ${window} still set the approvals needed)`;
  const waiting = use.waiting === '0.00' ? '' : `; ${naira(use.waiting)} more waiting for approval`;
  return `${naira(use.approved)} of ${naira(use.dailyLimit)} approved or sent in the last ${window}${waiting}. A request that would pass it is refused at filing and at its final approval.`;
}
