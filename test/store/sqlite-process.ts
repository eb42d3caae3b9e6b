// A second process on a SQLite store file, driven by the tests over stdin/stdout, one line each:
//   argv: <file> <lock wait ms>
//   out:  opening · ready · claimed <wins> · failed <message> · closed
//   in:   claim <N> → claim keys claim:0…N-1 at once · close (or stdin ending) → close and exit
import { createInterface } from 'node:readline';
import { createStore } from '../../src/store/index.js';

const [file = '', waitText = '30000'] = process.argv.slice(2);
const say = (line: string) => process.stdout.write(`${line}\n`);

say('opening');
try {
  const store = await createStore(`sqlite://${file}`, { fileLockWaitMs: Number(waitText) });
  say('ready');
  const input = createInterface({ input: process.stdin });
  const close = async () => {
    await store.close();
    say('closed');
    process.exit(0);
  };
  const claim = async (count: number) => {
    const results = await Promise.all(
      Array.from({ length: count }, (_, i) => store.setIfAbsent(`claim:${i}`, process.pid)),
    );
    say(`claimed ${results.filter(Boolean).length}`);
  };
  input.on('line', (line) => {
    if (line === 'close') void close();
    else if (line.startsWith('claim ')) void claim(Number(line.slice('claim '.length)));
  });
  input.on('close', () => void close());
} catch (error) {
  say(`failed ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
