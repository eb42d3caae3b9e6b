// `npm run docs`: writes what code produces: docs/configuration.md (from the configuration schema),
// manifest.yml's /cngn usage hint (from the command registry) and scripts/audit-verify.mjs (the audit
// archive's standalone verifier, bundled from src/audit/). `npm run docs -- --check` writes nothing
// and exits 1 when a committed file differs from what the code produces; test/docs.test.ts fails the
// same way.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AUDIT_VERIFIER_SCRIPT, auditVerifierScript } from './docs/audit-verifier.js';
import { CONFIGURATION_PAGE, configurationPage } from './docs/configuration.js';
import { MANIFEST_FILE, manifestWithUsageHint } from './docs/manifest.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PAGES: Array<[path: string, render: () => string | Promise<string>]> = [
  [CONFIGURATION_PAGE, configurationPage],
  [MANIFEST_FILE, () => manifestWithUsageHint()],
  [AUDIT_VERIFIER_SCRIPT, auditVerifierScript],
];

const check = process.argv.includes('--check');
let stale = 0;
for (const [path, render] of PAGES) {
  const file = join(ROOT, path);
  const text = await render();
  let committed: string | undefined;
  try {
    committed = readFileSync(file, 'utf8');
  } catch {
    committed = undefined;
  }
  if (committed === text) {
    console.log(`up to date: ${path}`);
  } else if (check) {
    stale += 1;
    console.log(`stale: ${path} (run npm run docs)`);
  } else {
    writeFileSync(file, text);
    console.log(`written: ${path}`);
  }
}
process.exit(stale > 0 ? 1 : 0);
