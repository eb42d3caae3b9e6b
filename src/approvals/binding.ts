// A request is bound to the service environment (and API key) it was filed and approved for. Filed in
// the sandbox or with a test key and approved after the switch to live credentials, it must never be
// sent: it is closed with the reason instead. Pure.
import type { ServiceEnvironment } from './ports.js';
import { transition } from './state-machine.js';
import type { ApprovalRequest } from './types.js';

export interface ServiceBinding {
  environment: ServiceEnvironment;
  /** Non-reversible id of the API key in use, when known. */
  keyId?: string | undefined;
}

/** Why this request must not be sent with the current credentials; undefined when it may be. */
export function bindingProblem(request: ApprovalRequest, current: ServiceBinding): string | undefined {
  if (request.environment !== current.environment) {
    return `it was filed for ${request.environment.toUpperCase()}, but the bot now uses ${current.environment.toUpperCase()} credentials; nothing was sent`;
  }
  if (request.keyId && current.keyId && request.keyId !== current.keyId) {
    return 'it was filed under another API key than the one the bot now uses; nothing was sent';
  }
  return undefined;
}

/** Close a request that can never be sent: pending → cancelled, approved → failed (neither was sent). */
export function closeUnsendable(request: ApprovalRequest, problem: string, at: Date): ApprovalRequest {
  const base = { ...request, checking: undefined } as ApprovalRequest;
  if (request.state === 'pending') {
    return transition({ ...base, reason: problem }, 'cancelled', { action: 'cancelled', note: problem, at });
  }
  const outcome = { ...request.outcome, reason: problem, nothingSent: true as const };
  return transition({ ...base, outcome }, 'failed', { action: 'failed', note: problem, at });
}
