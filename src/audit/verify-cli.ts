// The standalone check of an audit archive, as an auditor runs it: `npm run audit:verify -- <archive
// folder or segment> --key <public key>`, or `node scripts/audit-verify.mjs …` with nothing but Node
// (that script is this file and what it imports, bundled by `npm run docs`). It reads only the files:
// no store, no Slack, no network. One line per problem, a summary, exit status 1 on any problem (2 when
// it cannot run). It fails closed: without a key pinned by the auditor, an archive re-signed whole with
// a fresh key would check out, so the answer is never "no problems" then (exit status 3). Over a whole
// archive it also checks every passkey-signed approval against the passkeys the chain registered
// (approval-evidence.ts); `--export-passkey <credential id>` prints one such key as PEM, for OpenSSL.
import { createPublicKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { checkApprovalEvidence, placedEntries, registeredKey } from './approval-evidence.js';
import { findArchive } from './archive-find.js';
import { publicKeyFromHex, publicKeyHex } from './crypto.js';
import { passkeyPem } from './passkey-keys.js';
import { verifySegments } from './segments.js';

const USAGE = `Usage: node audit-verify.mjs <archive folder, environment folder or segment folder> --key <public key>
       node audit-verify.mjs <folder> --key-file <file holding the public key>
       node audit-verify.mjs <archive folder> --export-passkey <credential id>

Checks every segment's signature, every entry's hash, the links between entries and between segments,
and that no sequence number is missing or repeated; over a whole archive, also that every request
sent whose approvals had to be signed has, for each approval, a passkey assertion over its recorded
figures by a passkey registered before it and not revoked, and that every assertion verifies. --key is the bot's audit public key (64 hex digits,
as /cngn audit verify shows it, or a file holding it or a PEM public key); --key-file is a file holding
either. Give either more than once for an archive signed with several keys. Exit status: 0 no problem,
1 problems found, 2 could not run, 3 no problem found but no key given: the signatures were not checked
against a known key. --export-passkey prints the public key the archive registered for that passkey,
as PEM (for openssl), and checks nothing.`;

/** Exit status when every check passed but no key was pinned. */
const NO_KEY_STATUS = 3;

/** A public key as given to --key: 64 hex digits, or a file holding them or a PEM public key. */
function readKeyArgument(value: string): string {
  return readKeyText(/^[0-9a-fA-F]{64}$/.test(value.trim()) ? value : readFileSync(value, 'utf8'));
}

/** 64 hex digits or a PEM public key, as text. */
function readKeyText(text: string): string {
  if (text.includes('BEGIN PUBLIC KEY')) return publicKeyHex(createPublicKey(text));
  const hex = text.trim().toLowerCase();
  publicKeyFromHex(hex); // throws when it is not a key
  return hex;
}

/** Runs the check on the command's words; returns the exit status. */
export function runVerifier(args: string[], print: (line: string) => void): number {
  const words = readArguments(args, print);
  if (typeof words === 'number') return words;
  const { paths, keys, exportPasskey } = words;
  if (paths.length !== 1) return usage(print, 'give one archive folder or segment');
  const path = paths[0] ?? '';
  let found: ReturnType<typeof findArchive>;
  try {
    found = findArchive(path);
  } catch (error) {
    return usage(print, error instanceof Error ? error.message : String(error));
  }
  if (found.environments.length === 0) return usage(print, `no audit segment found in ${path}`);
  if (exportPasskey !== undefined) return printPasskey(found, exportPasskey, print);
  print(`Checking the audit archive at ${path}`);
  let problems = printStray(found.stray, print) + printDecoys(found.decoys, print);
  const unknown = new Set<string>();
  for (const { name, segments } of found.environments) {
    problems += printEnvironment(name, verifySegments(name, segments, keys, found.single), print);
    // The passkeys and the policy an approval is checked against are elsewhere in the chain.
    if (found.single) continue;
    const evidence = printEvidence(name, segments, print);
    problems += evidence.problems;
    for (const approval of evidence.unknown) unknown.add(`${name} ${approval}`);
  }
  if (found.single) {
    print('One segment checked alone: whether segments before or after it are missing is not checked.');
  }
  if (unknown.size > 0) {
    print(
      `NOT CHECKED: ${approvalsText(unknown.size)} (CANNOT TELL above): the archive does not tell whether the people named were approvers then.`,
    );
  }
  return verdict(problems, keys, unknown.size, print);
}

/** The folder or segment and the keys named; an exit status when the words ask for help or are wrong. */
function readArguments(
  words: string[],
  print: (line: string) => void,
): { paths: string[]; keys: string[]; exportPasskey?: string } | number {
  const { rest: args, value: exportPasskey } = takeOption(words, '--export-passkey');
  if (exportPasskey === '') return usage(print, '--export-passkey needs a credential id');
  const paths: string[] = [];
  const keys: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    if (arg === '--help' || arg === '-h') {
      print(USAGE);
      return 0;
    }
    if (arg !== '--key' && arg !== '--key-file') {
      paths.push(arg);
      continue;
    }
    const key = readKeyOption(arg, args[++i], print);
    if (typeof key === 'number') return key;
    keys.push(key);
  }
  return { paths, keys, ...(exportPasskey !== undefined ? { exportPasskey } : {}) };
}

/** The words without `name` and the word after it; its value ('' when nothing follows), if given. */
function takeOption(args: string[], name: string): { rest: string[]; value?: string } {
  const at = args.indexOf(name);
  if (at < 0) return { rest: args };
  return { rest: [...args.slice(0, at), ...args.slice(at + 2)], value: args[at + 1] ?? '' };
}

/** The key `--key` or `--key-file` names; the exit status when there is none or it is not a key. */
function readKeyOption(
  arg: string,
  value: string | undefined,
  print: (line: string) => void,
): string | number {
  if (!value) return usage(print, `${arg} needs a value`);
  try {
    return arg === '--key' ? readKeyArgument(value) : readKeyText(readFileSync(value, 'utf8'));
  } catch (error) {
    return usage(
      print,
      `${arg} ${value}: not a public key (${error instanceof Error ? error.message : String(error)})`,
    );
  }
}

/** A segment's files outside any segment's folder, one problem each (see ArchiveFound.stray). */
function printStray(files: string[], print: (line: string) => void): number {
  for (const file of files) {
    print(
      `PROBLEM ${file}: a segment's file outside any segment's folder, where the bot writes none: not checked`,
    );
  }
  return files.length;
}

/** Segments' folders beside an archive's environment folders, one problem each (see ArchiveFound.decoys). */
function printDecoys(folders: string[], print: (line: string) => void): number {
  for (const folder of folders) {
    print(
      `PROBLEM ${folder}: a segment's folder beside the environments' folders, where the bot writes none: not checked`,
    );
  }
  return folders.length;
}

/** One environment's problems and summary lines; returns how many problems it has. */
function printEnvironment(
  name: string,
  report: ReturnType<typeof verifySegments>,
  print: (line: string) => void,
): number {
  for (const problem of report.problems) {
    print(`PROBLEM ${name}/${problem.segment || '-'}: ${problem.text}`);
  }
  const seqs =
    report.firstSeq !== undefined ? `seq ${report.firstSeq} to ${report.lastSeq}` : 'no readable segment';
  print(
    `${name}: ${report.segments} segment${report.segments === 1 ? '' : 's'}, ${seqs} (${report.entries} entries), signed by ${report.keys.join(' and ') || 'no key'}`,
  );
  // The bot's `/cngn audit verify` names the segment it last wrote: the two must be the same.
  if (report.last) {
    print(
      `${name}: ends at segment ${report.last.segment} (seq ${report.last.head.seq}, hash ${report.last.head.hash})`,
    );
  }
  return report.problems.length;
}

/**
 * The environment's passkey-signed approvals checked: a line per problem and per thing the archive
 * cannot tell, one saying what was checked.
 */
function printEvidence(
  name: string,
  segments: Parameters<typeof placedEntries>[0],
  print: (line: string) => void,
): { problems: number; unknown: string[] } {
  const report = checkApprovalEvidence(placedEntries(segments));
  for (const problem of report.problems) print(`PROBLEM ${name}/${problem.segment}: ${problem.text}`);
  for (const doubt of report.unknown) print(`CANNOT TELL ${name}/${doubt.segment}: ${doubt.text}`);
  if (report.requests > 0) {
    print(
      `${name}: ${report.signatures} passkey signature${report.signatures === 1 ? '' : 's'} checked on ${report.requests} request${report.requests === 1 ? '' : 's'} sent with signed approvals`,
    );
  }
  return { problems: report.problems.length, unknown: report.unknown.map((doubt) => doubt.approval) };
}

/** `--export-passkey`: the registered public key as PEM, alone on stdout; exit 1 when none is found. */
function printPasskey(
  found: ReturnType<typeof findArchive>,
  credentialId: string,
  print: (line: string) => void,
): number {
  for (const { segments } of found.environments) {
    const cose = registeredKey(placedEntries(segments), credentialId);
    if (cose === undefined) continue;
    try {
      print(passkeyPem(cose).trimEnd());
      return 0;
    } catch (error) {
      print(
        `audit-verify: passkey ${credentialId}: ${error instanceof Error ? error.message : String(error)}`,
      );
      return 1;
    }
  }
  print(`audit-verify: no registration of passkey ${credentialId} in this archive`);
  return 1;
}

/** The last line and the exit status: problems, no key to check the signatures against, or all well. */
function verdict(problems: number, keys: string[], unchecked: number, print: (line: string) => void): number {
  if (problems > 0) {
    print(`${problems} problem${problems === 1 ? '' : 's'} found.`);
    return 1;
  }
  if (keys.length === 0) {
    print(
      'NOT VERIFIED: signatures not checked against a known key. Each segment was checked only against the key it names itself, which anyone can replace along with every signature. Run again with --key <the public key /cngn audit verify shows> (or --key-file <file>).',
    );
    return NO_KEY_STATUS;
  }
  const but = unchecked > 0 ? `; ${approvalsText(unchecked)} not checked (CANNOT TELL above)` : '';
  print(`No problems: every signature, hash and link checks out${but}.`);
  return 0;
}

const approvalsText = (n: number) => `${n} approval${n === 1 ? '' : 's'}`;

function usage(print: (line: string) => void, why: string): number {
  print(`audit-verify: ${why}`);
  print(USAGE);
  return 2;
}
