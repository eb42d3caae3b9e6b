// What the audit room offers the rest of the bot: the hash-chained, signed log, its archive, exports
// and checks, and the request's shape as an entry records it. Nothing else is imported from outside
// this folder (.dependency-cruiser.cjs).
export type { ActorLookup } from './actors.js';
export { signedBytes, signedChallenge } from './approval-bytes.js';
export type { ArchiveOutcome } from './archive.js';
export { type BreakKind, type ChainReport, canonicalJson, isCutMarker } from './chain.js';
export { auditCsv, auditJsonLines } from './export-files.js';
export { type AuditExportRecord, AuditExports, type UndeliveredListener } from './exports-under-way.js';
export {
  AUDIT_KEY_MISMATCH,
  type AuditAlarmListener,
  type AuditCheck,
  type AuditHealth,
  AuditKeeper,
  AuditKeyMismatch,
} from './keeper.js';
export { auditStateFiles, defaultArchiveDir, parseArchiveUrl } from './location.js';
export { type AuditDraft, AuditLog } from './log.js';
export {
  type AuditSeal,
  AuditSigner,
  HeadMarks,
  loadOrCreateSigningKey,
  parseSigningKey,
} from './signing.js';
export type {
  ActorDirectory,
  AuditEntry,
  DisplayDetails,
  ExecutionOutcome,
  PolicySetting,
  RequestState,
  ServiceEnvironment,
} from './types.js';
export {
  CALL_ACTION,
  type ChainWord,
  CLAIM_NOT_TAKEN,
  type OwnCall,
  type OwnClaim,
  VerifiedClosings,
} from './verified-closings.js';
export { type ChainFreeze, VerifiedFreeze } from './verified-freeze.js';
export {
  type ChainDelegations,
  DELEGATION_REVOKED,
  VerifiedDelegations,
} from './verified-read.js';
