// Where the segments are, given a path to the verifier: one segment, one environment's folder, or a
// whole archive. A folder this user may not read that is an environment's or a segment's (by its name)
// is one segment that cannot be read (a problem the check reports), never skipped; any other folder the
// archive's file system holds (a mount root's lost+found) is not the archive's and is skipped.
import { type Dirent, readdirSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import {
  ENTRIES_FILE,
  MANIFEST_FILE,
  readSegment,
  SEGMENT_NAME,
  type SegmentOnDisk,
  UNREADABLE_CODES,
} from './segments.js';
import type { ServiceEnvironment } from './types.js';

const isDir = (path: string) => {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
};
/** How a folder is listed: node's readdirSync (a test stands in a folder this user may not read). */
export type ListFolder = (path: string, options: { withFileTypes: true }) => Dirent[];

/**
 * A folder's subfolders, or (a folder this user may not read) why not. A passing failure (out of file
 * handles, a busy disk) is thrown: the check fails, it does not call the archive broken.
 */
const listFolders = (path: string, list: ListFolder): string[] | { unreadable: string } => {
  try {
    return list(path, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.'))
      .map((entry) => join(path, entry.name))
      .sort();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (!code || !UNREADABLE_CODES.has(code)) throw error;
    return { unreadable: code };
  }
};
const ENVIRONMENTS: readonly ServiceEnvironment[] = ['sandbox', 'test', 'live'];
/** A folder named as an environment's. */
const isEnvironmentName = (path: string) => (ENVIRONMENTS as readonly string[]).includes(basename(path));
/** A folder named as the archive names its own: an environment's or a segment's. */
const isArchiveName = (path: string) => isEnvironmentName(path) || SEGMENT_NAME.test(basename(path));
/** Which of a segment's files a folder holds; a passing failure to look (out of file handles) is thrown. */
const segmentFiles = (path: string): string[] =>
  [MANIFEST_FILE, ENTRIES_FILE]
    .map((file) => join(path, file))
    .filter((file) => {
      try {
        return statSync(file).isFile();
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ENOENT' || (code && UNREADABLE_CODES.has(code))) return false;
        throw error;
      }
    });
/**
 * Whether a folder inside an archive or an environment is a segment: named as one (read whatever it
 * holds, so one emptied or that cannot be entered is reported), or holding a segment's file and not
 * named as an environment (whose own stray files are reported as such).
 */
const isSegmentDir = (path: string) =>
  SEGMENT_NAME.test(basename(path)) || (!isEnvironmentName(path) && segmentFiles(path).length > 0);
/** A folder this user may not list, as a segment the check reports (never skipped). */
const unreadableFolder = (path: string, why: string): SegmentOnDisk => ({
  name: basename(path),
  path,
  unreadable: `the folder cannot be read (${why})`,
});

/** An environment's segments: a folder in it that cannot be listed is one, unreadable; so is the folder itself. */
function environmentSegments(path: string, list: ListFolder): SegmentOnDisk[] {
  const found = listFolders(path, list);
  if (!Array.isArray(found)) return isArchiveName(path) ? [unreadableFolder(path, found.unreadable)] : [];
  return found.flatMap((child) => {
    const inside = listFolders(child, list);
    if (!Array.isArray(inside))
      return isArchiveName(child) ? [unreadableFolder(child, inside.unreadable)] : [];
    return isSegmentDir(child) ? [readSegment(child)] : [];
  });
}

/** What a path given to the verifier holds: one segment, one environment's segments, or a whole archive. */
export interface ArchiveFound {
  /** One segment alone: its place in the chain is not checked. */
  single: boolean;
  environments: Array<{ name: string; segments: SegmentOnDisk[] }>;
  /**
   * A segment's files lying beside an archive's or an environment's folders, in no segment's folder:
   * the bot never writes one there, so each is a problem (a copy put there to be checked instead).
   */
  stray: string[];
  /**
   * Segments' folders lying beside an archive's environment folders: the bot never writes one there,
   * so each is a problem, never read as a segment (a copy put there to be checked instead).
   */
  decoys: string[];
}

/**
 * Finds the segments at `path`; throws when it is no segment, environment or archive folder. A folder
 * is named by its resolved name (`.` and `..` resolved, a link by its own name), which names the
 * environment whose folder it is; it is one segment alone only when that name is a segment's (or the
 * path names its file): a folder holding
 * folders is an archive or an environment whatever else it holds, so a copy of one segment's files
 * beside them never stands in for the segments. A folder holding an environment's folder is an archive,
 * whatever else it holds or is named: a segment's folder beside it is a decoy, reported, never read.
 */
export function findArchive(path: string, list: ListFolder = readdirSync): ArchiveFound {
  if (!isDir(path)) return fileGiven(path);
  // The folder's own name, `.` and `..` resolved against the working folder; a link goes by the name it
  // is given, never the one it leads to (a link named `live` to another environment's folder is a decoy).
  const name = basename(resolve(path));
  if (SEGMENT_NAME.test(name)) return single({ ...readSegment(path), name });
  const children = listFolders(path, list);
  if (!Array.isArray(children)) throw new Error(`${path} cannot be read (${children.unreadable})`);
  const stray = segmentFiles(path);
  if (children.length === 0 && stray.length > 0) {
    throw new Error(
      `${path} holds a segment's files but is not named as a segment's folder: give its ${MANIFEST_FILE} to check it alone`,
    );
  }
  if (!children.some(isEnvironmentName) && children.some(isSegmentDir)) {
    const segments = children.map((child) => readSegment(child));
    return { single: false, environments: [{ name, segments }], stray, decoys: [] };
  }
  return archiveAt(children, stray, list);
}

/** An archive's environments, from the folders in it; segments' folders beside them are decoys. */
function archiveAt(children: string[], stray: string[], list: ListFolder): ArchiveFound {
  const decoys = children.filter((child) => !isEnvironmentName(child) && isSegmentDir(child));
  const found = children
    .filter((child) => !decoys.includes(child))
    .map((child) => ({ child, name: basename(child), segments: environmentSegments(child, list) }))
    .filter(({ child, segments }) => segments.length > 0 || isArchiveName(child));
  return {
    single: false,
    environments: found
      .filter(({ segments }) => segments.length > 0)
      .map(({ name, segments }) => ({ name, segments })),
    stray: [...stray, ...found.flatMap(({ child }) => segmentFiles(child))],
    decoys,
  };
}

/** A segment's file named itself: that segment alone. */
function fileGiven(path: string): ArchiveFound {
  const name = basename(path);
  if ((name === MANIFEST_FILE || name === ENTRIES_FILE) && segmentFiles(dirname(path)).length > 0) {
    return single(readSegment(dirname(path)));
  }
  throw new Error(`${path} is not an archive folder, a segment folder or a segment's ${MANIFEST_FILE}`);
}

function single(segment: SegmentOnDisk): ArchiveFound {
  return {
    single: true,
    environments: [{ name: segment.manifest?.environment ?? '?', segments: [segment] }],
    stray: [],
    decoys: [],
  };
}
