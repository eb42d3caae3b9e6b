// A second process on a SQLite store file, driven by the tests over stdin/stdout, one line each:
//   argv: <file> <lock wait ms> [unlocked]  (unlocked: skip the file lock, to race the database claim)
//   out:  opening · ready after <pid of the last process to close the file, or -> · claimed <wins> ·
//         written <N> · set <wins> · deleted <wins> · failed <message> · closed
//   in:   claim <N> → claim keys claim:0…N-1 at once · write <N> → at once, N claims (event:i), N
//         values (value:i) and N list items (events), answered when all have resolved · accept <N> →
//         at once, N claimAndWrite (entry:i, with pending member i and tail:i), answered as accepted <N> ·
//         set <N> <owner> → at once, compareAndSet of claim:i from owner to "moved" · delete <N> <owner> →
//         at once, compareAndDelete of claim:i while owner holds it · close (or stdin ending) → close and exit
import { createInterface } from 'node:readline';
import { createStore } from '../../src/store/index.js';
import { connectSqlite } from '../../src/store/sqlite.js';

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
  // Once: "close" and stdin's end may both ask, and a second write to the closed store would reject.
  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      await store.set('closed-by', process.pid);
      await store.close();
      say('closed');
      process.exit(0);
    })());
  const claim = async (count: number) => {
    const results = await Promise.all(
      Array.from({ length: count }, (_, i) => store.setIfAbsent(`claim:${i}`, process.pid)),
    );
    say(`claimed ${results.filter(Boolean).length}`);
  };
  const write = async (count: number) => {
    await Promise.all(
      Array.from({ length: count }, async (_, i) => {
        await store.setIfAbsent(`event:${i}`, { i });
        await store.set(`value:${i}`, i);
        await store.appendToList('events', i);
      }),
    );
    say(`written ${count}`);
  };
  const accept = async (count: number) => {
    await Promise.all(
      Array.from({ length: count }, (_, i) =>
        store.claimAndWrite({ key: `entry:${i}`, value: { i } }, [
          { kind: 'addToSet', set: 'pending', member: String(i) },
          { kind: 'set', key: `tail:${i}`, value: i },
        ]),
      ),
    );
    say(`accepted ${count}`);
  };
  /** `set` or `delete` of claim:0…N-1 over `owner` (a pid, as claim wrote it), all at once. */
  const overOwner = async (verb: string, count: number, owner: number) => {
    const results = await Promise.all(
      Array.from({ length: count }, (_, i) =>
        verb === 'set'
          ? store.compareAndSet<number | string>(`claim:${i}`, owner, 'moved')
          : store.compareAndDelete(`claim:${i}`, owner),
      ),
    );
    say(`${verb === 'set' ? 'set' : 'deleted'} ${results.filter(Boolean).length}`);
  };
  input.on('line', (line) => {
    const [verb = '', count, owner] = line.split(' ');
    if (line === 'close') void close();
    else if (line.startsWith('write ')) void write(Number(line.slice('write '.length)));
    else if (line.startsWith('claim ')) void claim(Number(line.slice('claim '.length)));
    else if (line.startsWith('accept ')) void accept(Number(line.slice('accept '.length)));
    else if (verb === 'set' || verb === 'delete') void overOwner(verb, Number(count), Number(owner));
  });
  input.on('close', () => void close());
} catch (error) {
  say(`failed ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
