// One connection to the SQLite file whose statements are prepared once and kept. Through keyv's own
// connection every query prepares a statement and finalizes it afterwards, and finalizing runs on the
// main thread under the connection's mutex: it waits there for whatever another statement of that
// connection is doing on a worker thread (a synced commit included). A kept statement is only bound
// and stepped, on a worker thread.
import sqlite3 from 'sqlite3';
import type { Query } from './group-commit.js';

/** Distinct statements kept per connection; past that, a statement is prepared for each use. */
const KEPT_STATEMENTS = 256;

export class SqliteConnection {
  private readonly statements = new Map<string, sqlite3.Statement>();
  private closed = false;

  private constructor(private readonly db: sqlite3.Database) {}

  static open(path: string, busyTimeoutMs: number): Promise<SqliteConnection> {
    return new Promise((resolve, reject) => {
      const db = new sqlite3.Database(path, (error) => {
        if (error) return reject(error);
        db.configure('busyTimeout', busyTimeoutMs);
        resolve(new SqliteConnection(db));
      });
    });
  }

  /** Every row the statement returns; rejects with SQLite's error. */
  readonly query: Query = (sql, ...params) => {
    if (this.closed) return Promise.reject(new Error('the SQLite connection is closed'));
    return new Promise((resolve, reject) => {
      const done = (error: Error | null, rows: unknown[]) => (error ? reject(error) : resolve(rows));
      const kept = this.statements.get(sql);
      if (kept) {
        kept.all(params, done);
        return;
      }
      if (this.statements.size >= KEPT_STATEMENTS) {
        this.db.all(sql, params, done);
        return;
      }
      const statement = this.db.prepare(sql, (error) => {
        if (!error) return void statement.all(params, done);
        // Not kept: the next use prepares it again. The caller hears SQLite's own reason.
        if (this.statements.get(sql) === statement) this.statements.delete(sql);
        reject(error);
      });
      this.statements.set(sql, statement);
    });
  };

  /** Runs a script of statements (no parameters, no rows) in one call on SQLite's thread. */
  readonly exec = (sql: string): Promise<void> => {
    if (this.closed) return Promise.reject(new Error('the SQLite connection is closed'));
    return new Promise((resolve, reject) => {
      this.db.exec(sql, (error) => (error ? reject(error) : resolve()));
    });
  };

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const statements = [...this.statements.values()];
    this.statements.clear();
    await Promise.all(statements.map((s) => new Promise<void>((resolve) => s.finalize(() => resolve()))));
    await new Promise<void>((resolve, reject) =>
      this.db.close((error) => (error ? reject(error) : resolve())),
    );
  }
}
