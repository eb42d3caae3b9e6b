// `npm run supply-chain [-- <out dir>]`: what CI checks of the production dependencies, the ones the
// image ships (npm ls --omit=dev):
//   - a CycloneDX SBOM of them, written by npm itself (`npm sbom`), to <out dir>/sbom.cdx.json;
//   - every one under a licence the allow-list below takes (SPDX expressions, read with
//     spdx-satisfies), or the run fails naming the package and its licence;
//   - `npm audit --omit=dev --audit-level=high`, where the registry answers it: a high or critical
//     advisory fails the run; a registry without the audit endpoint is said, and does not.
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import satisfies from 'spdx-satisfies';

const run = promisify(execFile);

// Permissive licences, and MPL-2.0 (file-level copyleft: @resvg/resvg-js, used unchanged). A new
// licence is a decision: add it here with the package that brought it in the commit message.
const ALLOWED = [
  'MIT',
  'ISC',
  'BSD-2-Clause',
  'BSD-3-Clause',
  'Apache-2.0',
  '0BSD',
  'BlueOak-1.0.0',
  'MPL-2.0',
];

const out = resolve(process.argv[2] ?? 'supply-chain');
mkdirSync(out, { recursive: true });

const { stdout } = await run('npm', ['sbom', '--sbom-format', 'cyclonedx', '--omit=dev'], {
  maxBuffer: 64 * 1024 * 1024,
});
const sbom = JSON.parse(stdout);
writeFileSync(join(out, 'sbom.cdx.json'), `${JSON.stringify(sbom, null, 2)}\n`);
console.log(
  `SBOM: ${sbom.components.length} production components, CycloneDX ${sbom.specVersion}, in ${join(out, 'sbom.cdx.json')}`,
);

/** The component's licence as one SPDX expression, or undefined when it declares none. */
function licenceOf(component) {
  const parts = (component.licenses ?? []).map((l) => l.expression ?? l.license?.id ?? l.license?.name);
  if (parts.length === 0 || parts.some((p) => !p)) return undefined;
  return parts.length === 1 ? parts[0] : parts.map((p) => `(${p})`).join(' AND ');
}

const refused = [];
for (const component of sbom.components) {
  const licence = licenceOf(component);
  let ok = false;
  try {
    ok = licence !== undefined && satisfies(licence, ALLOWED);
  } catch {
    ok = false; // not an SPDX expression
  }
  if (!ok) refused.push(`${component.name}@${component.version}: ${licence ?? 'no licence declared'}`);
}
if (refused.length > 0) {
  console.error(`licences: ${refused.length} production package(s) outside ${ALLOWED.join(', ')}:`);
  for (const line of refused) console.error(`  ${line}`);
  process.exit(1);
}
console.log(`licences: all ${sbom.components.length} production packages under ${ALLOWED.join(', ')}`);

const audit = await run('npm', ['audit', '--omit=dev', '--audit-level=high', '--json'], {
  maxBuffer: 64 * 1024 * 1024,
}).then(
  ({ stdout }) => ({ code: 0, stdout }),
  (error) => ({ code: error.code, stdout: error.stdout ?? '' }),
);
let report;
try {
  report = JSON.parse(audit.stdout);
} catch {
  report = undefined;
}
const counts = report?.metadata?.vulnerabilities;
writeFileSync(join(out, 'npm-audit.json'), audit.stdout || '{}\n');
if (!counts) {
  const why = report?.error?.summary || report?.message || 'no answer';
  console.log(
    `notice: npm audit: the registry did not answer the audit (${why}); no advisories were checked`,
  );
} else {
  const line = Object.entries(counts)
    .filter(([level]) => level !== 'total')
    .map(([level, n]) => `${n} ${level}`)
    .join(', ');
  console.log(`npm audit --omit=dev: ${line}`);
  if (audit.code !== 0) {
    console.error('npm audit: a high or critical advisory in a production dependency (npm audit --omit=dev)');
    process.exit(1);
  }
}
