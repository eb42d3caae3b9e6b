// A second process on a SQLite store file, driven by the tests over stdin/stdout, one line each:
//   argv: <file> <lock wait ms> [unlocked]  (unlocked: skip the file lock, to race the database claim)
//   out:  opening · ready after <pid of the last process to close the file, or -> · claimed <wins> ·
//         failed <message> · closed
//   in:   claim <N> → claim keys claim:0…N-1 at once · close (or stdin ending) → close and exit
import { createInterface } from 'node:readline';
import { connectSqlite, createStore } from '../../src/store/index.js';

const [file = '', waitText = '30000', mode] = process.argv.slice(2);
const say = (line: string) => process.stdout.write(`${line}\n`);

say('opening');
try {
  const store =
    mode === 'unlocked'
      ? await connectSqlite(file, 'cngn-desk')
      : await createStore(`sqlite://${file}`, { fileLockWaitMs: Number(waitText) });
  say(`ready after ${(await store.get<number>('closed-by')) ?? '-'}`);
  const input = createInterface({ input: process.stdin });
  const close = async () => {
    await store.set('closed-by', process.pid);
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
