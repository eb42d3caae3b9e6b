// The audit archive on disk, and its check. A segment is a folder holding `entries.jsonl` (chained
// entries, one canonical JSON line each, exactly as chained) and `manifest.json` (the first and last
// seq, the previous segment's head, this one's head, the entries file's SHA-256, the public key, and an
// Ed25519 signature over all of that). An archive folder holds one folder per service environment, each
// holding its segments.
//
// The check needs nothing but these files and Node: the standalone verifier (scripts/audit-verify.mjs)
// is built from this file, audit/archive-find.ts, audit/chain.ts and audit/crypto.ts, and the bot uses the same code to decide
// what retention may remove.
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { canonicalJson, entryHash } from './chain.js';
import { sha256Hex, short, signatureHolds } from './crypto.js';
import type { AuditEntry } from './types.js';

export const SEGMENT_FORMAT = 'cngn-desk audit segment 1';
export const MANIFEST_FILE = 'manifest.json';
export const ENTRIES_FILE = 'entries.jsonl';
/** Where a segment is written before it appears under its name (skipped when reading). */
export const INCOMING_DIR = '.incoming';
/** Each segment's first seq, claimed by its writer before the rename (skipped when reading). */
export const CLAIMS_DIR = '.claims';

interface SegmentHead {
  seq: number;
  hash: string;
}

export interface SegmentManifest {
  format: string;
  environment: string;
  /** The archive's first segment: nothing was archived before it. */
  first: boolean;
  firstSeq: number;
  lastSeq: number;
  count: number;
  /** The head this segment continues from: the previous segment's head (the first's: its first prev). */
  previousHead: SegmentHead;
  head: SegmentHead;
  entries: { file: string; sha256: string; bytes: number };
  writtenAt: string;
  /** Why it was written: `schedule`, `command by U…`, `shutdown`. */
  reason: string;
  /** The public key it is signed with, 64 hex digits. */
  key: string;
  /** Ed25519, base64, over manifestText (every other field). */
  signature: string;
}

/** The text a manifest's signature covers: every field but the signature, canonical JSON. */
export function manifestText(manifest: Omit<SegmentManifest, 'signature'> & { signature?: string }): string {
  const { signature: _signature, ...signed } = manifest;
  return canonicalJson(signed);
}

/** One canonical JSON line per entry, as chained. */
export function entriesText(entries: AuditEntry[]): string {
  return entries.map((entry) => `${canonicalJson(entry)}\n`).join('');
}

/** `0000000000-0000000041-20261102T101500Z`: sorts by seq; the time keeps each name new. */
/** The codes that say a folder cannot be read (not a passing failure): a broken archive, reported. */
export const UNREADABLE_CODES: ReadonlySet<string> = new Set(['EACCES', 'EPERM', 'ENOTDIR', 'ELOOP']);
/** What segmentName() makes: first seq, last seq, when written (UTC, to the second). */
export const SEGMENT_NAME = /^\d{10}-\d{10}-\d{8}T\d{6}Z$/;

export function segmentName(firstSeq: number, lastSeq: number, writtenAt: Date): string {
  const pad = (n: number) => String(n).padStart(10, '0');
  const at = writtenAt.toISOString().replace(/[-:]/g, '').replace(/\.\d+/, '');
  return `${pad(firstSeq)}-${pad(lastSeq)}-${at}`;
}

/** A segment folder as read: its manifest when readable, its entries file's bytes when present. */
export interface SegmentOnDisk {
  name: string;
  path: string;
  manifest?: SegmentManifest;
  /** Why the manifest could not be used. */
  unreadable?: string;
  entries?: Buffer;
  /** Why the entries file, present, could not be read (a code: EACCES, EISDIR). */
  entriesUnreadable?: string;
}

/** How a segment's files are read: node's readFileSync (a test stands in a failing one). */
export type ReadArchiveFile = (path: string) => Buffer;

/**
 * The codes that say a file is missing or cannot be read whatever the moment (a folder where it should
 * be, a mode the bot's user cannot pass): the segment is broken, reported. Any other failure (out of
 * file handles, a busy disk) is a passing one and is thrown: the check fails, it does not call the
 * archive broken.
 */
const FILE_GONE_CODES: ReadonlySet<string> = new Set([...UNREADABLE_CODES, 'ENOENT', 'EISDIR']);

/** A file of a segment: its bytes, or why it is missing or unreadable. A passing failure is thrown. */
function segmentFile(path: string, read: ReadArchiveFile): Buffer | { code: string } {
  try {
    return read(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (!code || !FILE_GONE_CODES.has(code)) throw error;
    return { code };
  }
}

export function readSegment(path: string, read: ReadArchiveFile = readFileSync): SegmentOnDisk {
  const segment: SegmentOnDisk = { name: basename(path), path };
  const entries = segmentFile(join(path, ENTRIES_FILE), read);
  if (Buffer.isBuffer(entries)) segment.entries = entries;
  else if (entries.code !== 'ENOENT') segment.entriesUnreadable = entries.code;
  const manifest = segmentFile(join(path, MANIFEST_FILE), read);
  if (!Buffer.isBuffer(manifest)) {
    return { ...segment, unreadable: `${MANIFEST_FILE} is missing or unreadable (${manifest.code})` };
  }
  try {
    const parsed = JSON.parse(manifest.toString('utf8')) as SegmentManifest;
    if (!isManifest(parsed))
      return { ...segment, unreadable: `${MANIFEST_FILE} lacks fields a manifest has` };
    return { ...segment, manifest: parsed };
  } catch {
    return { ...segment, unreadable: `${MANIFEST_FILE} is not JSON` };
  }
}

function isManifest(m: SegmentManifest): boolean {
  const head = (h: SegmentHead | undefined) => Number.isInteger(h?.seq) && typeof h?.hash === 'string';
  return (
    typeof m === 'object' &&
    m !== null &&
    Number.isInteger(m.firstSeq) &&
    Number.isInteger(m.lastSeq) &&
    Number.isInteger(m.count) &&
    head(m.previousHead) &&
    head(m.head) &&
    typeof m.entries?.sha256 === 'string' &&
    typeof m.key === 'string' &&
    typeof m.signature === 'string'
  );
}

interface ArchiveProblem {
  /** The segment's folder name (empty for the environment as a whole). */
  segment: string;
  text: string;
}

/** What the check found for one environment's segments. */
export interface ArchiveReport {
  environment: string;
  segments: number;
  /** Entries in all the segments. */
  entries: number;
  firstSeq?: number;
  lastSeq?: number;
  /** The keys the segments are signed with, in order of first appearance. */
  keys: string[];
  problems: ArchiveProblem[];
  /** The segments that verify, unbroken from the archive's first: the hash of each seq they hold. */
  verified: Map<number, string>;
  /** The last of those: its head, name and when it was written. */
  verifiedHead?: SegmentHead & { segment: string; writtenAt: string };
  /** The segment with the highest seq, whatever its state. */
  last?: { segment: string; head: SegmentHead; writtenAt: string };
}

interface Checked {
  segment: SegmentOnDisk;
  manifest: SegmentManifest;
  problems: string[];
  lines: Array<Pick<AuditEntry, 'seq' | 'hash'>>;
}

/**
 * Check one environment's segments: each signature (against `keys` when given, else the keys the
 * segments name, which must all be the same), each entries file against its manifest, each entry's hash
 * and link, and across segments that each continues from the one before with no seq missing or
 * repeated. `single`: one segment alone, its place in the chain not checked.
 */
export function verifySegments(
  environment: string,
  segments: SegmentOnDisk[],
  keys: readonly string[] = [],
  single = false,
  kept?: SegmentChecks,
): ArchiveReport {
  const problems: ArchiveProblem[] = [];
  const keysSeen = namedKeys(segments, problems);
  const expected = keys.length > 0 ? keys : keysSeen.slice(0, 1);
  const checked: Checked[] = [];
  const used = new Set<string>();
  for (const segment of segments) {
    if (!segment.manifest) continue;
    checked.push(checkSegmentOnce(segment, segment.manifest, expected, keys.length > 0, kept, used));
  }
  for (const key of kept?.keys() ?? []) if (!used.has(key)) kept?.delete(key);
  checked.sort(
    (a, b) => a.manifest.firstSeq - b.manifest.firstSeq || a.segment.name.localeCompare(b.segment.name),
  );
  const { verified, verifiedHead, before } = walkSegments(environment, checked, single, problems);
  const last = before
    ? { segment: before.segment.name, head: before.manifest.head, writtenAt: before.manifest.writtenAt }
    : undefined;
  return {
    environment,
    segments: segments.length,
    entries: checked.reduce((sum, c) => sum + c.lines.length, 0),
    ...(checked[0] ? { firstSeq: checked[0].manifest.firstSeq } : {}),
    ...(before ? { lastSeq: before.manifest.lastSeq } : {}),
    keys: keysSeen,
    problems,
    verified,
    ...(verifiedHead ? { verifiedHead } : {}),
    ...(last ? { last } : {}),
  };
}

/** The keys the segments' manifests name, in order; a segment without a readable manifest is a problem. */
function namedKeys(segments: SegmentOnDisk[], problems: ArchiveProblem[]): string[] {
  const keysSeen: string[] = [];
  for (const segment of segments) {
    if (!segment.manifest) {
      problems.push({ segment: segment.name, text: segment.unreadable ?? `no ${MANIFEST_FILE}` });
      continue;
    }
    if (!keysSeen.includes(segment.manifest.key)) keysSeen.push(segment.manifest.key);
  }
  return keysSeen;
}

/**
 * The checked segments in seq order, each linked to the one before: their problems, the entries of
 * the unbroken run from the first (verified), where that run ends, and the segment reaching furthest.
 */
function walkSegments(
  environment: string,
  checked: Checked[],
  single: boolean,
  problems: ArchiveProblem[],
): {
  verified: Map<number, string>;
  verifiedHead: ArchiveReport['verifiedHead'];
  before: Checked | undefined;
} {
  const verified = new Map<number, string>();
  let verifiedHead: ArchiveReport['verifiedHead'];
  let trusting = true;
  let before: Checked | undefined;
  for (const current of checked) {
    const { manifest } = current;
    const link = placeProblems(environment, before, current, single);
    for (const text of [...current.problems, ...link]) problems.push({ segment: current.segment.name, text });
    trusting = trusting && current.problems.length === 0 && link.length === 0;
    if (trusting) {
      for (const entry of current.lines) verified.set(entry.seq ?? -1, entry.hash ?? '');
      verifiedHead = { ...manifest.head, segment: current.segment.name, writtenAt: manifest.writtenAt };
    }
    if (!before || manifest.lastSeq >= before.manifest.lastSeq) before = current;
  }
  return { verified, verifiedHead, before };
}

/**
 * Where `current` stands: in this environment (added to its own problems), and how it follows
 * `before` (returned). A single segment checked alone has no place to check.
 */
function placeProblems(
  environment: string,
  before: Checked | undefined,
  current: Checked,
  single: boolean,
): string[] {
  if (single) return [];
  if (current.manifest.environment !== environment) {
    current.problems.push(`belongs to the ${current.manifest.environment} environment, not ${environment}`);
  }
  return linkProblems(before, current);
}

/** How `current` follows `before` (the segment with the highest seq so far). */
function linkProblems(before: Checked | undefined, current: Checked): string[] {
  const m = current.manifest;
  if (!before) {
    return m.first
      ? []
      : [`the segments before it are missing: it starts at seq ${m.firstSeq} and is not the archive's first`];
  }
  const b = before.manifest;
  const after = `segment ${before.segment.name}`;
  if (m.first) return [`says it is the archive's first segment, but ${after} comes before it`];
  if (m.firstSeq > b.lastSeq + 1)
    return [`${range(b.lastSeq + 1, m.firstSeq - 1)} missing between ${after} and it`];
  if (m.firstSeq <= b.lastSeq) {
    return [`${range(m.firstSeq, Math.min(b.lastSeq, m.lastSeq))} repeated: also in ${after}`];
  }
  if (m.previousHead.seq !== b.head.seq || m.previousHead.hash !== b.head.hash) {
    return [`does not continue from ${after}: the previous head it names is not that segment's head`];
  }
  return [];
}

const range = (from: number, to: number) => (from === to ? `seq ${from}` : `seq ${from} to ${to}`);

/** What is wrong with a segment's manifest: its format, the key that signed it, its signature. */
function manifestProblems(manifest: SegmentManifest, expected: readonly string[], given: boolean): string[] {
  const problems: string[] = [];
  if (manifest.format !== SEGMENT_FORMAT)
    problems.push(`its manifest has an unknown format (${String(manifest.format)})`);
  if (expected.length > 0 && !expected.includes(manifest.key)) {
    problems.push(
      given
        ? `signed by key ${short(manifest.key)}, not by the key given (${expected.map(short).join(', ')})`
        : `signed by key ${short(manifest.key)}, while the first segment is signed by key ${short(expected[0] ?? '')}`,
    );
  } else if (!signatureHolds(manifestText(manifest), manifest.signature, manifest.key)) {
    problems.push('its manifest does not match its signature: it was changed after it was signed');
  }
  return problems;
}

/**
 * What checking a segment found, by the SHA-256 of its two files and the keys expected: a long-running
 * bot checks only the segments that are new or changed since its last read.
 */
export type SegmentChecks = Map<
  string,
  { problems: string[]; lines: Array<Pick<AuditEntry, 'seq' | 'hash'>> }
>;

function checkSegmentOnce(
  segment: SegmentOnDisk,
  manifest: SegmentManifest,
  expected: readonly string[],
  given: boolean,
  kept: SegmentChecks | undefined,
  used: Set<string>,
): Checked {
  if (!kept || !segment.entries) return checkSegment(segment, manifest, expected, given);
  const files = [sha256Hex(segment.entries), sha256Hex(JSON.stringify(manifest))];
  const key = JSON.stringify([segment.name, ...files, given, ...expected]);
  used.add(key);
  const known = kept.get(key);
  if (known) return { segment, manifest, problems: [...known.problems], lines: known.lines };
  const found = checkSegment(segment, manifest, expected, given);
  const lines = found.lines.map(({ seq, hash }) => ({ seq, hash }));
  kept.set(key, { problems: [...found.problems], lines });
  return found;
}

function checkSegment(
  segment: SegmentOnDisk,
  manifest: SegmentManifest,
  expected: readonly string[],
  given: boolean,
): Checked {
  const problems = manifestProblems(manifest, expected, given);
  if (!segment.entries) {
    problems.push(
      segment.entriesUnreadable
        ? `${ENTRIES_FILE} cannot be read (${segment.entriesUnreadable})`
        : `${ENTRIES_FILE} is missing`,
    );
    return { segment, manifest, problems, lines: [] };
  }
  if (
    sha256Hex(segment.entries) !== manifest.entries.sha256 ||
    segment.entries.length !== manifest.entries.bytes
  ) {
    problems.push(
      `${ENTRIES_FILE} is not the file its manifest signed (its SHA-256 differs): it was changed`,
    );
  }
  const { lines, problems: lineProblems } = checkLines(segment.entries, manifest.previousHead);
  problems.push(...lineProblems);
  const firstLine = lines[0];
  const lastLine = lines.at(-1);
  if (
    lineProblems.length === 0 &&
    (firstLine?.seq !== manifest.firstSeq ||
      lastLine?.seq !== manifest.lastSeq ||
      lines.length !== manifest.count ||
      lastLine?.hash !== manifest.head.hash ||
      manifest.head.seq !== manifest.lastSeq)
  ) {
    problems.push(
      `its manifest says ${range(manifest.firstSeq, manifest.lastSeq)} (${manifest.count} entries), but ${ENTRIES_FILE} holds ${lines.length ? range(firstLine?.seq ?? -1, lastLine?.seq ?? -1) : 'nothing'} (${lines.length})`,
    );
  }
  return { segment, manifest, problems, lines };
}

/**
 * Each line's hash, then its place: every edited line is named; of breaks in the order or the links
 * (a line missing, repeated, moved), the first one, since everything after it follows from it.
 */
function checkLines(bytes: Buffer, previous: SegmentHead): { lines: AuditEntry[]; problems: string[] } {
  const problems: string[] = [];
  const texts = bytes.toString('utf8').split('\n');
  if (texts.at(-1) === '') texts.pop();
  const parsed = texts.map((text, index) => parseLine(text, index, problems));
  const seqs = new Set(parsed.map((entry) => entry?.seq));
  let expectedSeq = previous.seq + 1;
  let expectedPrev = previous.hash;
  let broken = problems.length > 0;
  parsed.forEach((entry, index) => {
    if (!entry) return;
    const seq = entry.seq as number;
    if (entryHash(entry) !== entry.hash) {
      problems.push(`line ${index + 1} (seq ${seq}): its content no longer matches its hash: edited`);
    }
    const misplaced = broken ? undefined : placeProblem(entry, index, expectedSeq, expectedPrev, seqs);
    if (misplaced) {
      problems.push(misplaced);
      broken = true;
    }
    expectedSeq = seq + 1;
    expectedPrev = entry.hash ?? '';
  });
  return { lines: parsed.filter((entry): entry is AuditEntry => entry !== undefined), problems };
}

/** Line `index` as a chained entry; what keeps it from being one goes into `problems`. */
function parseLine(text: string, index: number, problems: string[]): AuditEntry | undefined {
  let entry: unknown;
  try {
    entry = JSON.parse(text);
  } catch {
    problems.push(`line ${index + 1} is not JSON`);
    return undefined;
  }
  const chained = entry as AuditEntry;
  if (
    typeof entry !== 'object' ||
    entry === null ||
    !Number.isInteger(chained.seq) ||
    typeof chained.hash !== 'string'
  ) {
    problems.push(`line ${index + 1} is not a chained entry (no seq or hash)`);
    return undefined;
  }
  return chained;
}

/**
 * What is wrong with the place of a line where seq `expectedSeq` after `expectedPrev` belongs. As in
 * the chain's own check: the entry that belongs here is elsewhere (moved), or nowhere (removed).
 */
function placeProblem(
  entry: AuditEntry,
  index: number,
  expectedSeq: number,
  expectedPrev: string,
  seqs: Set<number | undefined>,
): string | undefined {
  const n = index + 1;
  const seq = entry.seq as number;
  if (seq < expectedSeq || (seq > expectedSeq && seqs.has(expectedSeq))) {
    return `line ${n} (seq ${seq}): out of order (seq ${expectedSeq} belongs here)`;
  }
  if (seq > expectedSeq) return `line ${n} (seq ${seq}): ${range(expectedSeq, seq - 1)} missing before it`;
  if (entry.prev === expectedPrev) return undefined;
  return index === 0
    ? `line ${n} (seq ${seq}): does not follow the previous head its manifest names`
    : `line ${n} (seq ${seq}): does not follow the line before it (its prev is not that line's hash)`;
}
