// Preloaded into a child running the bot: as soon as main.ts has its handlers in place, while
// start-up is still under way, a promise fails with nobody awaiting it. The parent test reads what the
// bot logged and how it exited.
const before = process.listenerCount('unhandledRejection');
const rejectOnceHandled = () => {
  if (process.listenerCount('unhandledRejection') > before) {
    void Promise.reject(new Error('failed while starting'));
    return;
  }
  setImmediate(rejectOnceHandled);
};
setImmediate(rejectOnceHandled);
