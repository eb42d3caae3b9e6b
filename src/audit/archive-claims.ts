// The claims of archive segments (audit/archive.ts): each segment's first seq is claimed in the folder
// (`.claims/<seq>`, an exclusive mkdir holding `owner.json`) before the segment is staged inside it; here
// the names, the exclusive file and folder primitives, and the reading of who holds a claim.
import { mkdir, open, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';

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
 * Who holds a claim and since when (ms): its owner file, else (a writer stopped before writing it, or
 * one that wrote it unreadable) the folder's mtime; nothing when the claim is gone. A failure to read
 * (out of file handles, a disk error) is thrown: no guess dates a claim another writer may hold.
 */
export async function claimHolder(claim: string): Promise<{ owner: string; at: number } | undefined> {
  let text: string | undefined;
  try {
    text = await readFile(join(claim, CLAIM_OWNER_FILE), 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
  }
  const held = text === undefined ? undefined : parseOwner(text);
  if (held) return held;
  try {
    const { mtimeMs } = await stat(claim);
    return { owner: 'a writer that did not say', at: mtimeMs };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** An owner file's writer and time (ms), when it says both. */
function parseOwner(text: string): { owner: string; at: number } | undefined {
  try {
    const held = JSON.parse(text) as { owner?: unknown; at?: unknown };
    const at = typeof held.at === 'string' ? Date.parse(held.at) : Number.NaN;
    return typeof held.owner === 'string' && Number.isFinite(at) ? { owner: held.owner, at } : undefined;
  } catch {
    return undefined;
  }
}
