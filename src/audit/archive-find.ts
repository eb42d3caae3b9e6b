// Where the segments are, given a path to the verifier: one segment, one environment's folder, or a
// whole archive. A folder this user may not read that is an environment's or a segment's (by its name)
// is one segment that cannot be read (a problem the check reports), never skipped; any other folder the
// archive's file system holds (a mount root's lost+found) is not the archive's and is skipped.
import { type Dirent, readdirSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
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
/** A folder named as the archive names its own: an environment's or a segment's. */
const isArchiveName = (path: string) =>
  (ENVIRONMENTS as readonly string[]).includes(basename(path)) || SEGMENT_NAME.test(basename(path));
/**
 * Whether a folder is a segment: named as one (read whatever it holds, so one emptied or that cannot be
 * entered is reported), or holding a segment's file; a passing failure to look (out of file handles) is thrown.
 */
const isSegmentDir = (path: string) => {
  if (SEGMENT_NAME.test(basename(path))) return true;
  const isFile = (file: string) => {
    try {
      return statSync(join(path, file)).isFile();
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || (code && UNREADABLE_CODES.has(code))) return false;
      throw error;
    }
  };
  return isFile(MANIFEST_FILE) || isFile(ENTRIES_FILE);
};
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
}

/** Finds the segments at `path`; throws when it is no segment, environment or archive folder. */
export function findArchive(path: string, list: ListFolder = readdirSync): ArchiveFound {
  const file = !isDir(path);
  if (file) {
    const name = basename(path);
    if ((name === MANIFEST_FILE || name === ENTRIES_FILE) && isSegmentDir(dirname(path))) {
      return single(readSegment(dirname(path)));
    }
    throw new Error(`${path} is not an archive folder, a segment folder or a segment's ${MANIFEST_FILE}`);
  }
  if (isSegmentDir(path)) return single(readSegment(path));
  const listed = listFolders(path, list);
  if (!Array.isArray(listed)) throw new Error(`${path} cannot be read (${listed.unreadable})`);
  const children = listed;
  if (children.some(isSegmentDir)) {
    return {
      single: false,
      environments: [{ name: basename(path), segments: children.map((child) => readSegment(child)) }],
    };
  }
  const environments = children
    .map((child) => ({ name: basename(child), segments: environmentSegments(child, list) }))
    .filter((environment) => environment.segments.length > 0);
  return { single: false, environments };
}

function single(segment: SegmentOnDisk): ArchiveFound {
  return {
    single: true,
    environments: [{ name: segment.manifest?.environment ?? '?', segments: [segment] }],
  };
}
