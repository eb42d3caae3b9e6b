// How many approvals a request needs, as every surface shows it: the builders take it from the engine
// (ApprovalEngine.approvalsShown, under the tiers it runs with), never from a figure kept on the request.
import type { ApprovalRequest } from '../../../approvals/index.js';

/** How many approvals to show a request needs; tiers raised since filing make it more than the stored count. */
export type ApprovalsShown = (request: ApprovalRequest) => number;

/** The count as filed, for a rendering with no engine at hand (a builder's own test). */
export const FILED_COUNT: ApprovalsShown = (request) => request.requiredApprovals;
