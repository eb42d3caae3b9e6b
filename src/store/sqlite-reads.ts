// Reads of keys on the SQLite file, gathered: every key asked for within one turn of the event loop
// is read by one statement. Each statement is a round trip to SQLite's thread and back through the
// event loop; under load the webhook intake asked for a few keys per event, one round trip each.
// A read still sees only committed data, taken after it was asked for.
import type { Query } from './group-commit.js';

type Rows = Map<string, unknown>;

/** A NUL or a surrogate: JSON text can't carry such a key to SQLite as it is. */
const unsafeInJson = (key: string) => key.includes('\u0000') || /[\ud800-\udfff]/.test(key);

export class KeyReads {
  private waiting: Array<{
    keys: string[];
    resolve: (rows: Rows) => void;
    reject: (error: unknown) => void;
  }> = [];
  private scheduled = false;

  constructor(
    private readonly query: Query,
    private readonly table: string,
  ) {}

  /** The stored text of each key found (keyed by stored key); absent keys are not in the map. */
  read(keys: string[]): Promise<Rows> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ keys, resolve, reject });
      if (this.scheduled) return;
      this.scheduled = true;
      // After the poll phase: every request read in this turn has asked by then.
      setImmediate(() => void this.flush());
    });
  }

  private async flush(): Promise<void> {
    this.scheduled = false;
    const batch = this.waiting;
    this.waiting = [];
    try {
      const keys = [...new Set(batch.flatMap((read) => read.keys))];
      // JSON text can't carry a NUL or a lone surrogate to SQLite as the same key: those are bound.
      const plain = keys.filter((key) => !unsafeInJson(key));
      const bound = keys.filter(unsafeInJson);
      const rows = (await this.query(
        `SELECT key, value FROM ${this.table} WHERE key IN (SELECT value FROM json_each(?))`,
        JSON.stringify(plain),
      )) as Array<{ key: string; value: unknown }>;
      for (const key of bound) {
        rows.push(
          ...((await this.query(`SELECT key, value FROM ${this.table} WHERE key = ?`, key)) as typeof rows),
        );
      }
      const found: Rows = new Map(rows.map((row) => [row.key, row.value]));
      for (const read of batch) read.resolve(found);
    } catch (error) {
      for (const read of batch) read.reject(error);
    }
  }
}
