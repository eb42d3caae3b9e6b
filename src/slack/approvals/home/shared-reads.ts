// Reads that the publishes of one change share. One change asks for the Home of everyone it concerns
// at once; their publishes join one read of each thing under way, but only a read begun after the
// publish was asked for: every change that asked for it was stored before it was announced, so such a
// read sees it. A finished read is never reused, and a read that fails fails only those that joined it.
// Values read are shared between publishes: nothing that takes one may change it in place.

export class SharedReads<Key extends string> {
  /** Orders requests for a publish and the beginnings of reads. */
  private ticks = 0;
  private readonly underWay = new Map<Key, { tick: number; read: Promise<unknown> }>();

  /** The tick of a publish asked for now. */
  ask(): number {
    this.ticks += 1;
    return this.ticks;
  }

  /** `key` for a publish asked for at tick `since`: a read under way begun after it, or a new one. */
  read<T>(key: Key, since: number, start: () => Promise<T>): Promise<Readonly<T>> {
    const current = this.underWay.get(key);
    if (current && current.tick > since) return current.read as Promise<T>;
    const read = (async () => start())();
    const entry = { tick: this.ask(), read };
    this.underWay.set(key, entry);
    const done = () => {
      if (this.underWay.get(key) === entry) this.underWay.delete(key);
    };
    read.then(done, done);
    return read;
  }
}
