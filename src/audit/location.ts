// Where the audit trail's state outside the store lives: the archive folder (CNGN_AUDIT_ARCHIVE, a
// file:// URL) and, beside the store, the signing key the bot makes and its marks of signed heads.
import { createHash } from 'node:crypto';
import { basename, dirname, join, resolve } from 'node:path';
import { rawUrlWithoutPasswords } from '../store/url-credentials.js';

/**
 * CNGN_AUDIT_ARCHIVE: a folder as a file:// URL (`file://./data/audit-archive` relative to the working
 * folder, `file:///var/lib/…` absolute). Only folders are written for now.
 */
export function parseArchiveUrl(text: string): string {
  const url = text.trim();
  if (!url.startsWith('file://')) {
    const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1];
    throw new Error(
      `must be a file:// URL of a folder, e.g. file://./data/audit-archive or file:///var/lib/cngn-desk/audit-archive${scheme ? ` (${scheme}:// is not supported)` : ''}`,
    );
  }
  const path = decodeURIComponent(url.slice('file://'.length));
  if (path === '') throw new Error('must name a folder after file://');
  return path;
}

/**
 * Where the bot keeps what must stay outside the store: the audit signing key it makes when none is
 * given, and its marks of the newest signed heads. SQLite: beside the file, named after it. PostgreSQL
 * and Redis: ./data, the marks named after the store. A memory store: nowhere (nothing outlives it).
 */
export function auditStateFiles(storeUrl: string): { keyFile: string; marksFile: string } | undefined {
  if (storeUrl.startsWith('memory://')) return undefined;
  if (storeUrl.startsWith('sqlite://')) {
    const file = resolve(storeUrl.slice('sqlite://'.length) || './data/cngn-desk.sqlite');
    const base = basename(file).replace(/\.[^.]*$/, '');
    return {
      keyFile: join(dirname(file), `${base}.audit-signing-key.pem`),
      marksFile: join(dirname(file), `${base}.audit-heads.json`),
    };
  }
  const id = createHash('sha256').update(withoutPassword(storeUrl)).digest('hex').slice(0, 12);
  return {
    keyFile: resolve('./data/audit-signing-key.pem'),
    marksFile: resolve(`./data/audit-heads-${id}.json`),
  };
}

/** The archive's folder when CNGN_AUDIT_ARCHIVE is unset: `audit-archive` beside the store's state. */
export function defaultArchiveDir(storeUrl: string): string | undefined {
  const state = auditStateFiles(storeUrl);
  return state && join(dirname(state.keyFile), 'audit-archive');
}

/**
 * The store's URL without any password, so a password's rotation keeps the marks: out of the userinfo,
 * out of the query (`?password=`), and out of a URL that does not parse. A URL with no password in its
 * query is written as it always was, so an upgrade keeps the marks file it had.
 */
function withoutPassword(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return rawUrlWithoutPasswords(url);
  }
  parsed.password = '';
  for (const name of [...parsed.searchParams.keys()]) {
    if (name.toLowerCase() === 'password') parsed.searchParams.delete(name);
  }
  return parsed.toString();
}
