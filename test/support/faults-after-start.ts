// Preloaded into a child running the bot: once the bot says it is running, a promise fails with
// nobody awaiting it, then a timer throws. The parent test reads what the bot logged and how it exited.
const write = process.stderr.write.bind(process.stderr);
let fired = false;
process.stderr.write = ((chunk: string | Uint8Array, ...rest: never[]) => {
  const result = write(chunk, ...rest);
  if (!fired && String(chunk).includes('cngn-desk is running')) {
    fired = true;
    void Promise.reject(new Error('a stray rejection'));
    setTimeout(() => {
      throw new Error('boom near cngn_test_leakedkey123');
    }, 200);
  }
  return result;
}) as typeof process.stderr.write;
