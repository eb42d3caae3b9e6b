// The engine's parts, for tests that stop a process between two of its steps (approved but not yet
// sent, claimed but not yet marked). Nothing in src/ outside the engine imports this (the lint says
// so): every caller gets every rule through ApprovalEngine's own methods.

import type { ApprovalPolicy } from '../access/index.js';
import type { AuditExports, AuditKeeper } from '../audit/index.js';
import type { ApprovalCore } from './approval-core.js';
import type { Executor } from './executor.js';
import type { PolicyRecorder } from './policy-recorder.js';
import type { Reminders } from './reminders.js';
import type { Tracker } from './tracker.js';

export interface EngineParts {
  core: ApprovalCore;
  executor: Executor;
  policy: ApprovalPolicy;
  tracker: Tracker;
  reminders: Reminders;
  auditExports: AuditExports;
  auditKeeper: AuditKeeper;
  policyRecorder: PolicyRecorder;
}

const parts = new WeakMap<object, EngineParts>();

export function registerParts(engine: object, own: EngineParts): void {
  parts.set(engine, own);
}

/** The parts of an ApprovalEngine (typed loosely: this file is beneath the engine, never above it). */
export function partsOf(engine: object): EngineParts {
  const own = parts.get(engine);
  if (!own) throw new Error('not an ApprovalEngine');
  return own;
}
