// The standalone verifier's entry point (scripts/audit-verify.mjs is this, bundled): see audit/verify-cli.ts.
import { runVerifier } from './verify-cli.js';

process.exitCode = runVerifier(process.argv.slice(2), (line) => process.stdout.write(`${line}\n`));
