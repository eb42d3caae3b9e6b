// Child of the "crypto under forced GC" line: seals responses and makes OpenSSH key pairs while V8
// collects garbage every n allocations, n swept over a range, so collections land at every point of
// a seal. Prints "done <seals> <keys>" when it finishes; a hang is the failure (the parent kills it).
import { randomBytes } from 'node:crypto';
import { setFlagsFromString } from 'node:v8';
import { generateOpenSshKeyPair, sealResponseData } from '../../src/cngn/wire.js';

const seals = Number(process.argv[2] ?? 20_000);
const recipient = randomBytes(32);
const intervals = 400;
const each = Math.max(1, Math.ceil(seals / intervals));
let sealed = 0;
let keys = 0;
for (let n = 2; sealed < seals; n = n >= intervals + 1 ? 2 : n + 1) {
  setFlagsFromString(`--gc-interval=${n}`);
  for (let i = 0; i < each && sealed < seals; i++, sealed++)
    sealResponseData('{"balance":"1.00"}', recipient);
  if (n % 40 === 0) {
    generateOpenSshKeyPair();
    keys += 1;
  }
}
setFlagsFromString('--gc-interval=-1');
process.stdout.write(`done ${sealed} ${keys}\n`);
