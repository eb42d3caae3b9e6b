// The claims of archive segments (audit/archive.ts): each segment's first seq is claimed in the folder
// (`.claims/<seq>`, an exclusive mkdir holding `owner.json`) before the segment is staged inside it; here
// the names, the exclusive file and folder primitives, the reading of who holds a claim (a passing
// failure tried again shortly), and the clearing of the folders of claims taken over.

import { randomUUID } from 'node:crypto';
import { type Dirent, existsSync, readFileSync } from 'node:fs';
import { mkdir, open, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import type { ListFolder } from './archive-find.js';
import type { ReadArchiveFile } from './segments.js';

/** Only the bot's user reads the archive: segments hold payout payloads and purposes. */
export const FOLDER_MODE = 0o700;
const FILE_MODE = 0o400;
/** A claim's name: the first seq, as segment names begin with it. */
export const claimName = (firstSeq: number) => String(firstSeq).padStart(10, '0');
/** Inside a claim: who made it and when, so that another writer can tell a live claim from an abandoned one. */
export const CLAIM_OWNER_FILE = 'owner.json';

/** Create (never replace) a file only the bot's user may read, and make it durable. */
export async function writeOnce(path: string, text: string): Promise<void> {
  const file = await open(path, 'wx', FILE_MODE);
  try {
    await file.writeFile(text, 'utf8');
    await file.sync();
  } finally {
    await file.close();
  }
}

/** So a rename survives a crash (where the file system allows a folder to be synced). */
export async function syncFolder(path: string): Promise<void> {
  const folder = await open(path, 'r').catch(() => undefined);
  await folder?.sync().catch(() => undefined);
  await folder?.close();
}

/** mkdir, exclusive: false when it exists already. */
export async function exclusiveDir(path: string): Promise<boolean> {
  try {
    await mkdir(path, { mode: FOLDER_MODE });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

/**
 * Who holds a claim and since when (ms); `claimId`: the write that made it (an older version's owner
 * file names none); `unknown`: why its owner file does not say (the holder is unknown).
 */
export interface ClaimHolder {
  owner: string;
  at: number;
  claimId?: string;
  unknown?: string;
}

/** An owner file's text: the writer (its process), the write that made the claim, and when. */
export const ownerText = (owner: string, claimId: string, at: Date) =>
  `${JSON.stringify({ owner, claimId, at: at.toISOString() })}\n`;

/** Codes that say an owner file cannot be read whatever the moment: its holder is unknown. */
const OWNER_UNREADABLE: ReadonlySet<string> = new Set(['EACCES', 'EPERM', 'EISDIR', 'ELOOP']);
/** Codes of a failure that passes (out of file handles, a busy disk): tried again shortly. */
const PASSING_CODES: ReadonlySet<string> = new Set(['EMFILE', 'ENFILE', 'EAGAIN', 'EBUSY', 'EINTR']);
/** How often, and how far apart (ms, growing), a passing failure to read a claim is tried. */
const CLAIM_READ_TRIES = 4;
const CLAIM_READ_RETRY_MS = 25;
/** The folder a claim taken over is renamed to (removed at once, else at the next segment). */
const ABANDONED_NAME = /^\.\d{10}-abandoned-/;

/**
 * Who holds a claim and since when: its owner file, else (a writer stopped before writing it, or an
 * owner file that cannot be read, is not JSON or lacks a field) the folder's mtime, with why the holder
 * is unknown; nothing when the claim is gone. A passing failure to read (out of file handles, a busy
 * disk) is tried again shortly, then thrown: no guess dates a claim another writer may hold, and it is
 * no proof that the claim was taken over.
 */
export async function claimHolder(
  claim: string,
  read: ReadArchiveFile = readFileSync,
): Promise<ClaimHolder | undefined> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await claimHolderOnce(claim, read);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? '';
      if (!PASSING_CODES.has(code) || attempt >= CLAIM_READ_TRIES) throw error;
      await delay(CLAIM_READ_RETRY_MS * attempt);
    }
  }
}

async function claimHolderOnce(claim: string, read: ReadArchiveFile): Promise<ClaimHolder | undefined> {
  let unknown = `its ${CLAIM_OWNER_FILE} is missing`;
  try {
    const held = parseOwner(read(join(claim, CLAIM_OWNER_FILE)).toString('utf8'));
    if (!('why' in held)) return held;
    unknown = `its ${CLAIM_OWNER_FILE} ${held.why}`;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? '';
    if (OWNER_UNREADABLE.has(code)) unknown = `its ${CLAIM_OWNER_FILE} cannot be read (${code})`;
    else if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
  }
  try {
    const { mtimeMs } = await stat(claim);
    return { owner: 'a writer that is not known', at: mtimeMs, unknown };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** An owner file's writer and time (ms), or why it does not say both. */
function parseOwner(text: string): ClaimHolder | { why: string } {
  let held: { owner?: unknown; claimId?: unknown; at?: unknown } | null;
  try {
    held = JSON.parse(text) as { owner?: unknown; claimId?: unknown; at?: unknown } | null;
  } catch {
    return { why: 'is not JSON' };
  }
  const at = typeof held?.at === 'string' ? Date.parse(held.at) : Number.NaN;
  if (typeof held?.owner !== 'string' || !Number.isFinite(at))
    return { why: 'does not name a writer and a time' };
  return { owner: held.owner, at, ...(typeof held.claimId === 'string' ? { claimId: held.claimId } : {}) };
}

/** A claim's holder in words: who and since when, or why it is not known and the folder's time. */
export function holderText(held: ClaimHolder): string {
  const at = new Date(held.at).toISOString();
  return held.unknown
    ? `a writer that is not known: ${held.unknown}; the claim folder dates from ${at}`
    : `${held.owner}, ${at}`;
}

/** How the claims folder is listed and a folder removed: node's, or a test's failing stand-ins. */
/** Where what an operator should hear of goes (logged as a warning), as it happens. */
export type Note = (note: string) => void;

export interface ClaimsFileSystem {
  list: ListFolder;
  remove: (path: string) => Promise<void>;
}

export const removeAll = (path: string) => rm(path, { recursive: true, force: true });
const why = (error: unknown) => (error as NodeJS.ErrnoException).code ?? String(error);

/**
 * The folders of claims taken over (`.<seq>-abandoned-*`) whose removal failed before: removed again.
 * Never a live claim (a writer looks at `.claims/<seq>` alone); one that cannot be removed is noted.
 */
export async function clearAbandoned(claims: string, fs: ClaimsFileSystem, note: Note): Promise<void> {
  let listed: Dirent[];
  try {
    listed = fs.list(claims, { withFileTypes: true });
  } catch (error) {
    note(`the claims folder ${claims} cannot be listed (${why(error)}) to clear the claims taken over`);
    return;
  }
  for (const entry of listed) {
    if (ABANDONED_NAME.test(entry.name)) await removeAbandoned(join(claims, entry.name), fs, note);
  }
}

/** Remove the folder of a claim taken over; noted when it stays (it is tried again at the next segment). */
export async function removeAbandoned(path: string, fs: ClaimsFileSystem, note: Note): Promise<void> {
  try {
    await fs.remove(path);
  } catch (error) {
    // Removed by another writer meanwhile (a lapsed lock): nothing to say.
    if (!existsSync(path)) return;
    note(
      `the folder of a claim taken over, ${path}, cannot be removed (${why(error)}); it is no claim, and it is tried again at the next segment`,
    );
  }
}

/**
 * Give a claim back: renamed out of the claim path first (atomic, as a takeover does), then removed,
 * never in place. A writer stalled after it found the claim its own may resume after a takeover made
 * it another's: that writer's staged folder moves away whole with it, so its own rename finds nothing,
 * it publishes nothing, and it claims afresh at its next write. `claimId`: the write giving it back;
 * `published`: the segment starting at the claim's seq, if one is in the folder.
 */
export async function giveBack(
  claim: string,
  claimId: string,
  fs: ClaimsFileSystem & { read?: ReadArchiveFile; published: () => string | undefined },
  note: Note,
): Promise<void> {
  const moved = join(dirname(claim), `.${basename(claim)}-abandoned-${randomUUID()}`);
  try {
    await rename(claim, moved);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    return;
  }
  const held = await claimHolder(moved, fs.read).catch(() => undefined);
  if (held && !held.unknown && held.claimId !== claimId) {
    // That writer may have published before the move: then its segment stands and nothing is lost.
    let after: string;
    try {
      const segment = fs.published();
      after = segment
        ? ` and had already published segment ${segment} from; nothing is lost`
        : ': that writer publishes nothing from it and claims again';
    } catch (error) {
      after = `; the folder cannot be listed (${why(error)}) to tell whether that writer published from it`;
    }
    note(
      `gave back the claim of seq ${Number(basename(claim))}, which another writer had taken over meanwhile (${holderText(held)})${after}`,
    );
  }
  await removeAbandoned(moved, fs, note);
}
