// The host's time zone for one test (`hostZone(zone)`), put back when the test ends, passed or failed:
// the worker runs other files after it. Node reads TZ again each time it is set.

/** The fixture: sets TZ, checks that it took effect, and puts the previous zone back in clean-up. */
export function hostZoneFixture({
  defer,
}: {
  defer: (cleanup: () => unknown) => void;
}): (zone: string) => void {
  const before = process.env.TZ;
  let set = false;
  return (zone) => {
    if (!set) {
      set = true;
      defer(() => {
        if (before === undefined) delete process.env.TZ;
        else process.env.TZ = before;
      });
    }
    process.env.TZ = zone;
    const named = new Intl.DateTimeFormat(undefined, { timeZoneName: 'short' }).resolvedOptions().timeZone;
    if (named !== zone) throw new Error(`the host zone is ${named}, not ${zone}`);
  };
}
