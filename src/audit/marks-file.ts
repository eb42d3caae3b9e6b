// Writing the marks file that replicas share (on one host, or a volume they all mount). A write is a
// read, a merge and a rename, so two at once would keep only the last: each runs under a lock file
// beside it. The lock is tried once and never waited for (a write runs inside an append, on a user's
// click): when it is held, the caller keeps its marks and tries again later. The new text goes to a
// temporary file named for that one write (never by process id: in containers every replica is pid 1)
// and is renamed over the file, so a reader sees a whole file. Ages are read against the volume's own
// clock (the mtime of a file just made beside it), never this host's: a shared volume dates files by its
// server's clock.
import { randomUUID } from 'node:crypto';
import {
  closeSync,
  linkSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  type Stats,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { basename, dirname, join } from 'node:path';

/**
 * A lock (or a breaker's turn) older than this was left by a writer that stopped: a write holds it for
 * a read and a rename, milliseconds.
 */
const LOCK_STALE_MS = 30_000;
/** Temporary files older than this were left by a writer that stopped mid-write. */
const LEFTOVER_MS = 60_000;

const codeOf = (error: unknown) => (error as NodeJS.ErrnoException).code;

/**
 * Under the lock, if it is free now: `next(current text, or undefined when there is no file)` written in
 * place of the file, and the file's stat as written (taken before the lock is given back, so it is this
 * write's and not a later writer's). Undefined, at once, when another writer holds the lock. Throws when
 * the file or the lock cannot be written.
 */
export function updateMarksFile(
  file: string,
  next: (current: string | undefined) => string,
): Stats | undefined {
  mkdirSync(dirname(file), { recursive: true });
  const lockFile = `${file}.lock`;
  const mine = takeLock(lockFile);
  if (!mine) return undefined;
  try {
    replaceFile(file, next(readIfThere(file)));
    return statSync(file);
  } finally {
    unlinkIfSame(lockFile, mine);
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

/**
 * The lock, if it is free (or stale) now: a whole file of this write's, linked to the lock's name. A
 * link is atomic and fails when the name is taken, so a lock is never half-written, and a write that
 * fails leaves none behind. Its stat identifies it when it is given back.
 */
function takeLock(lockFile: string): Stats | undefined {
  const part = `${lockFile}.${randomUUID()}.part`;
  try {
    writeFileSync(part, `${hostname()} pid ${process.pid}\n`, { flag: 'wx', mode: 0o600 });
    const mine = lstatSync(part);
    if (linked(part, lockFile)) return mine;
    if (!breakStaleLock(lockFile, mine.mtimeMs)) return undefined;
    return linked(part, lockFile) ? mine : undefined;
  } finally {
    rmQuietly(part);
  }
}

function linked(part: string, lockFile: string): boolean {
  try {
    linkSync(part, lockFile);
    return true;
  } catch (error) {
    if (codeOf(error) !== 'EEXIST') throw error;
    // Over NFS a link made whose answer was lost is retried and refused: the part then has two names.
    return lstatSync(part).nlink === 2;
  }
}

/**
 * Removes the lock when a writer that stopped left it, older than LOCK_STALE_MS at `now` (the volume's
 * clock); true when there is no lock now. Breakers take turns on `<lock>.break`, and one removes the
 * lock only while it is still the very file it found old (same inode and mtime): a lock another writer
 * took meanwhile is live, and stays. A turn older than LOCK_STALE_MS was left by a breaker that stopped.
 */
function breakStaleLock(lockFile: string, now: number): boolean {
  const found = lstatIfThere(lockFile);
  if (!found) return true;
  if (now - found.mtimeMs < LOCK_STALE_MS) return false;
  const turnFile = `${lockFile}.break`;
  const turn = created(turnFile);
  if (!turn) {
    const left = lstatIfThere(turnFile);
    if (left && now - left.mtimeMs >= LOCK_STALE_MS) unlinkIfSame(turnFile, left);
    return false;
  }
  try {
    const again = lstatIfThere(lockFile);
    if (again && !sameFile(again, found)) return false;
    if (again) rmQuietly(lockFile);
    return true;
  } finally {
    unlinkIfSame(turnFile, turn);
  }
}

/** `file`, made empty, if no file (or link) has its name; undefined when one has. */
function created(file: string): Stats | undefined {
  try {
    closeSync(openSync(file, 'wx', 0o600));
  } catch (error) {
    if (codeOf(error) === 'EEXIST') return undefined;
    throw error;
  }
  return lstatSync(file);
}

function lstatIfThere(file: string): Stats | undefined {
  try {
    return lstatSync(file);
  } catch (error) {
    if (codeOf(error) === 'ENOENT') return undefined;
    throw error;
  }
}

const sameFile = (a: Stats, b: Stats) => a.dev === b.dev && a.ino === b.ino && a.mtimeMs === b.mtimeMs;

/** Removes `file` only while it is still the file `was` describes (not one made since at its name). */
function unlinkIfSame(file: string, was: Stats): void {
  const now = lstatIfThere(file);
  if (now && sameFile(now, was)) rmQuietly(file);
}

function rmQuietly(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // already gone, or left for the clean-up at the next start
  }
}

/** Temporary files of `file` (its own and its lock's) that writers which stopped left behind. */
export function removeLeftovers(file: string): void {
  const dir = dirname(file);
  const prefix = `${basename(file)}.`;
  let names: string[];
  try {
    names = readdirSync(dir).filter((name) => name.startsWith(prefix) && name.endsWith('.part'));
  } catch {
    return;
  }
  if (names.length === 0) return;
  const now = volumeNow(file);
  if (now === undefined) return;
  for (const name of names) {
    try {
      const left = lstatIfThere(join(dir, name));
      if (left && now - left.mtimeMs > LEFTOVER_MS) unlinkIfSame(join(dir, name), left);
    } catch {
      // unreadable: left for the operator, as the writes that follow will say if the folder is
    }
  }
}

/** The time by the clock that dates files beside `file`: the mtime of one made there now. */
function volumeNow(file: string): number | undefined {
  const probe = `${file}.${randomUUID()}.part`;
  try {
    writeFileSync(probe, '', { flag: 'wx', mode: 0o600 });
    return lstatSync(probe).mtimeMs;
  } catch {
    // nothing can be made here: the clean-up waits, and the first write says why it fails
    return undefined;
  } finally {
    rmQuietly(probe);
  }
}
