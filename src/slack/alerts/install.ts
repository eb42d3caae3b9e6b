// Re-posting dead letters, as the start-up wiring lists it: only when alerts are posted and approvals
// are wired (re-posting is for approvers, and audited).
import type { Installed } from '../runtime/installed.js';
import { registerDeadLetterActions } from './dead-letter-actions.js';
import type { DeadLetterSlackDeps } from './types.js';

export function installDeadLetterActions(deps: DeadLetterSlackDeps | undefined): Installed {
  return deps ? { listeners: (app) => registerDeadLetterActions(app, deps) } : {};
}
