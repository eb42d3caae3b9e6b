// Writing the marks file that replicas share (on one host, or a volume they all mount). A write is a
// read, a merge and a rename, so two at once would keep only the last: each runs under an exclusive
// lock file beside it, made with O_EXCL, which a writer that stopped holding it leaves behind until it
// is old. The new text goes to a temporary file named for that one write (never by process id: in
// containers every replica is pid 1) and is renamed over the file, so a reader sees a whole file.
import { randomUUID } from 'node:crypto';
import {
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';

export interface MarksFileLock {
  /** How long a write waits for another writer's lock before it gives up (and says so). */
  lockWaitMs: number;
  /**
   * A lock older than this was left by a writer that stopped: a write holds it for milliseconds. Ample,
   * as a shared volume dates files by its server's clock, not the writer's.
   */
  lockStaleMs: number;
}

export const MARKS_FILE_LOCK: MarksFileLock = { lockWaitMs: 2_000, lockStaleMs: 30_000 };

/** Temporary files older than this were left by a writer that stopped mid-write. */
const LEFTOVER_MS = 60_000;
/** How long a write waiting for the lock sleeps between tries. */
const RETRY_MS = 2;

/** Blocks this thread for `ms`: the marks are written synchronously, between two steps of an append. */
function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

const codeOf = (error: unknown) => (error as NodeJS.ErrnoException).code;

/**
 * Under the lock, `next(current text, or undefined when there is no file)` and that text written in
 * place of the file. Throws when the lock stays held past the wait, or the file cannot be written.
 */
export function updateMarksFile(
  file: string,
  next: (current: string | undefined) => string,
  lock: MarksFileLock = MARKS_FILE_LOCK,
): void {
  mkdirSync(dirname(file), { recursive: true });
  const lockFile = `${file}.lock`;
  const token = randomUUID();
  takeLock(lockFile, token, lock);
  try {
    replaceFile(file, next(readIfThere(file)));
  } finally {
    giveBackLock(lockFile, token);
  }
}

function readIfThere(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    if (codeOf(error) === 'ENOENT') return undefined;
    throw error;
  }
}

function replaceFile(file: string, text: string): void {
  const part = `${file}.${randomUUID()}.part`;
  try {
    writeFileSync(part, text, { flag: 'wx', mode: 0o600 });
    renameSync(part, file);
  } catch (error) {
    rmQuietly(part);
    throw error;
  }
}

function takeLock(lockFile: string, token: string, lock: MarksFileLock): void {
  const deadline = Date.now() + lock.lockWaitMs;
  for (;;) {
    try {
      writeFileSync(lockFile, token, { flag: 'wx', mode: 0o600 });
      return;
    } catch (error) {
      if (codeOf(error) !== 'EEXIST') throw error;
    }
    if (clearStaleLock(lockFile, lock.lockStaleMs)) continue;
    if (Date.now() >= deadline) throw new Error(`${lockFile} is held by another writer`);
    sleepSync(RETRY_MS);
  }
}

/**
 * Removes the lock when it is stale; true when there is none now. It is moved aside first (a rename
 * is atomic), and put back unless it is the very lock found stale: two writers that both found it
 * stale must not remove the lock the quicker one has just taken.
 */
function clearStaleLock(lockFile: string, staleMs: number): boolean {
  const found = statIfThere(lockFile);
  if (!found) return true;
  if (Date.now() - found.mtimeMs < staleMs) return false;
  const aside = `${lockFile}.${randomUUID()}.stale`;
  try {
    renameSync(lockFile, aside);
  } catch (error) {
    if (codeOf(error) === 'ENOENT') return true;
    throw error;
  }
  const moved = statSync(aside);
  const same = moved.ino === found.ino && moved.mtimeMs === found.mtimeMs;
  if (!same) putBack(aside, lockFile);
  rmQuietly(aside);
  return same;
}

function putBack(aside: string, lockFile: string): void {
  try {
    linkSync(aside, lockFile);
  } catch (error) {
    if (codeOf(error) !== 'EEXIST') throw error;
  }
}

function statIfThere(file: string) {
  try {
    return statSync(file);
  } catch (error) {
    if (codeOf(error) === 'ENOENT') return undefined;
    throw error;
  }
}

/** Removes the lock only while it is still this write's (one taken over as stale is another's now). */
function giveBackLock(lockFile: string, token: string): void {
  if (readIfThere(lockFile) === token) rmQuietly(lockFile);
}

function rmQuietly(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // already gone, or left for the clean-up at the next start
  }
}

/** Temporary files and set-aside locks of `file` that writers which stopped left behind. */
export function removeLeftovers(file: string): void {
  const prefix = `${basename(file)}.`;
  let names: string[];
  try {
    names = readdirSync(dirname(file));
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(prefix) || !(name.endsWith('.part') || name.endsWith('.stale'))) continue;
    const path = join(dirname(file), name);
    try {
      if (Date.now() - statSync(path).mtimeMs > LEFTOVER_MS) unlinkSync(path);
    } catch {
      // removed meanwhile by another replica starting
    }
  }
}
