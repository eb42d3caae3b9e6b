// The figures an approver checks: what a request would send and where (amount, the exact body, the
// destination with its resolved account name, fees or quote, the purpose), as one digest. A review binds its
// approval to the digest of the figures it showed, so an approval never counts for other figures.
// Approvals, expiry and state are left out: another approver's approval changes nothing shown here.
import { createHash } from 'node:crypto';
import { canonicalJson } from '../audit/index.js';
import type { ApprovalRequest } from './types.js';

export function figuresDigest(request: ApprovalRequest): string {
  const { id, kind, environment, amount, payload, display, purpose } = request;
  const figures = canonicalJson({ id, kind, environment, amount, payload, display, purpose });
  return createHash('sha256').update(figures, 'utf8').digest('hex');
}
