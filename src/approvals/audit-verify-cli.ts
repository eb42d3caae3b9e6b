// The standalone check of an audit archive, as an auditor runs it: `npm run audit:verify -- <archive
// folder or segment> [--key <public key>]`, or `node scripts/audit-verify.mjs …` with nothing but Node
// (that script is this file and what it imports, bundled by `npm run docs`). It reads only the files:
// no store, no Slack, no network. One line per problem, a summary, exit status 1 on any problem (2 when
// it cannot run).
import { createPublicKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { publicKeyFromHex, publicKeyHex } from './audit-crypto.js';
import { findArchive, verifySegments } from './audit-segments.js';

const USAGE = `Usage: node audit-verify.mjs <archive folder, environment folder or segment folder> [--key <public key>]

Checks every segment's signature, every entry's hash, the links between entries and between segments,
and that no sequence number is missing or repeated. --key is the bot's audit public key (64 hex digits,
as /cngn audit verify shows it, or a file holding it or a PEM public key); give it more than once for
an archive signed with several keys. Exit status: 0 no problem, 1 problems found, 2 could not run.`;

/** A public key as given to --key: 64 hex digits, or a file holding them or a PEM public key. */
export function readKeyArgument(value: string): string {
  const text = /^[0-9a-fA-F]{64}$/.test(value.trim()) ? value : readFileSync(value, 'utf8');
  if (text.includes('BEGIN PUBLIC KEY')) return publicKeyHex(createPublicKey(text));
  const hex = text.trim().toLowerCase();
  publicKeyFromHex(hex); // throws when it is not a key
  return hex;
}

/** Runs the check on the command's words; returns the exit status. */
export function runVerifier(args: string[], print: (line: string) => void): number {
  const paths: string[] = [];
  const keys: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    if (arg === '--help' || arg === '-h') {
      print(USAGE);
      return 0;
    }
    if (arg === '--key') {
      const value = args[++i];
      if (!value) return usage(print, '--key needs a value');
      try {
        keys.push(readKeyArgument(value));
      } catch (error) {
        return usage(
          print,
          `--key ${value}: not a public key (${error instanceof Error ? error.message : String(error)})`,
        );
      }
    } else paths.push(arg);
  }
  if (paths.length !== 1) return usage(print, 'give one archive folder or segment');
  const path = paths[0] ?? '';
  let found: ReturnType<typeof findArchive>;
  try {
    found = findArchive(path);
  } catch (error) {
    return usage(print, error instanceof Error ? error.message : String(error));
  }
  if (found.environments.length === 0) return usage(print, `no audit segment found in ${path}`);
  print(`Checking the audit archive at ${path}`);
  let problems = 0;
  for (const { name, segments } of found.environments) {
    const report = verifySegments(name, segments, keys, found.single);
    for (const problem of report.problems) {
      print(`PROBLEM ${name}/${problem.segment || '-'}: ${problem.text}`);
    }
    problems += report.problems.length;
    const seqs =
      report.firstSeq !== undefined ? `seq ${report.firstSeq} to ${report.lastSeq}` : 'no readable segment';
    print(
      `${name}: ${report.segments} segment${report.segments === 1 ? '' : 's'}, ${seqs} (${report.entries} entries), signed by ${report.keys.join(' and ') || 'no key'}`,
    );
  }
  if (found.single) {
    print('One segment checked alone: whether segments before or after it are missing is not checked.');
  }
  if (keys.length === 0) {
    print(
      'No --key given: each signature was checked against the key its segment names. Compare that key with the one /cngn audit verify shows (or the bot logged at start), or run again with --key <that key>.',
    );
  }
  print(
    problems === 0
      ? 'No problems: every signature, hash and link checks out.'
      : `${problems} problem${problems === 1 ? '' : 's'} found.`,
  );
  return problems === 0 ? 0 : 1;
}

function usage(print: (line: string) => void, why: string): number {
  print(`audit-verify: ${why}`);
  print(USAGE);
  return 2;
}
