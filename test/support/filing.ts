// Filing a draft straight through the engine's own filing step, as tests of what comes after filing
// need it: the draft checked (zod), the limits, the same payment under the lock, and, with
// `preflight`, its refusals; the pre-flight reads themselves are left to the tests that are about them
// (they file through engine.file, as every surface does).

import { partsOf } from '../../src/approvals/engine-parts.js';
import type { ApprovalEngine, ApprovalRequest, RequestDraft } from '../../src/approvals/index.js';
import type { FileOptions } from '../../src/approvals/preflight.js';

export function fileDraft(
  engine: ApprovalEngine,
  draft: RequestDraft,
  options?: FileOptions,
): Promise<ApprovalRequest> {
  return partsOf(engine).core.file(draft, options);
}
