// Group commit for the SQLite store: every statement sent to the connection within one turn of the
// event loop runs inside one transaction, and each statement's promise settles only once that
// transaction has committed. A synced commit costs the same for one write as for a hundred, so
// concurrent requests share it; each still hears back only after its own data is on disk, and no
// caller ever sees a value that is not committed yet (reads go to a second connection that only sees
// committed data, or without one wait for the commit too).
//
// Statements keep their own meaning inside the batch: a conditional INSERT is still decided by the
// database, and a statement that fails is undone on its own (SQLite's statement rollback) and
// rejects alone. If the commit fails, every statement of the batch rejects: nothing of it was
// promised to anyone.
//
// A conditional write (`conditional`) is a statement plus the statements that follow from its answer
// (a claim, then what only its winner writes): they commit together or not at all. The first runs with
// the batch's single statements, the follow-ups right after, all of them together again. A follow-up
// that fails cannot be undone alone, so it fails the whole batch: every statement of it rejects and
// nothing of it stays, as when the commit fails.

export type Query = (sql: string, ...params: unknown[]) => Promise<unknown>;

interface Batch {
  statements: Array<{ sql: string; params: unknown[]; settle: (outcome: Outcome) => void }>;
  conditionals: Array<{
    sql: string;
    params: unknown[];
    then: (rows: unknown) => Statement[];
    settle: (outcome: Outcome) => void;
  }>;
}

/** SQL and its parameters. */
export type Statement = [sql: string, params: unknown[]];

type Outcome = { ok: true; rows: unknown } | { ok: false; error: unknown };

export class GroupCommit {
  private open: Batch | undefined;
  /** The batch being run (BEGIN … COMMIT); the next one starts after it. */
  private running: Promise<void> = Promise.resolve();

  /**
   * `raw` runs statements on the writing connection. `read`, a second connection on the same file,
   * answers SELECTs at once: in WAL it sees exactly what was committed when it starts reading (never a
   * batch still open on the writing connection), which includes every write already answered.
   */
  constructor(
    private readonly raw: Query,
    private readonly read?: Query,
  ) {}

  /** Run one statement in the next batch; resolves with its rows once the batch has committed. */
  readonly query: Query = (sql, ...params) => {
    if (this.read && /^\s*SELECT\b/i.test(sql)) return this.read(sql, ...params);
    return new Promise((resolve, reject) => {
      const batch = this.batch();
      batch.statements.push({
        sql,
        params,
        settle: (outcome) => (outcome.ok ? resolve(outcome.rows) : reject(outcome.error)),
      });
    });
  };

  /**
   * Run `sql` in the next batch, then the statements `then` returns for its rows, all in that batch's
   * transaction; resolves with the first statement's rows once the batch has committed.
   */
  conditional(sql: string, params: unknown[], then: (rows: unknown) => Statement[]): Promise<unknown> {
    return new Promise((resolve, reject) => {
      this.batch().conditionals.push({
        sql,
        params,
        then,
        settle: (outcome) => (outcome.ok ? resolve(outcome.rows) : reject(outcome.error)),
      });
    });
  }

  /** Resolves once every statement sent so far has been committed (or rejected). */
  async idle(): Promise<void> {
    while (this.open) await this.running;
    await this.running;
  }

  private batch(): Batch {
    if (this.open) return this.open;
    const batch: Batch = { statements: [], conditionals: [] };
    this.open = batch;
    // The batch takes every statement sent until the previous batch has committed and this turn of
    // the event loop is over, then runs them in one transaction.
    this.running = this.running
      .then(() => new Promise<void>((resolve) => setImmediate(resolve)))
      .then(() => {
        if (this.open === batch) this.open = undefined;
        return this.run(batch);
      });
    return batch;
  }

  private async run(batch: Batch): Promise<void> {
    try {
      // IMMEDIATE: take the write lock at once (waiting out another connection, busyTimeout), so the
      // transaction never has to upgrade from read to write half-way and fail there.
      await this.raw('BEGIN IMMEDIATE');
    } catch (error) {
      this.fail(batch, error);
      return;
    }
    // Sent together, as they were before batching: statements no caller has heard back from yet
    // are concurrent, and the connection runs them one at a time in whatever order it picks.
    const all = [...batch.statements, ...batch.conditionals];
    const outcomes = await Promise.all(all.map(({ sql, params }) => this.attempt(sql, params)));
    try {
      const followUps = batch.conditionals.flatMap((conditional, i) => {
        const outcome = outcomes[batch.statements.length + i]!;
        return outcome.ok ? conditional.then(outcome.rows) : [];
      });
      // Every follow-up finishes before the batch is committed or rolled back.
      const done = await Promise.all(followUps.map(([sql, params]) => this.attempt(sql, params)));
      const failed = done.find((outcome) => !outcome.ok);
      if (failed && !failed.ok) throw failed.error;
      await this.raw('COMMIT');
    } catch (error) {
      await this.raw('ROLLBACK').catch(() => undefined);
      this.fail(batch, error);
      return;
    }
    for (const [i, statement] of all.entries()) statement.settle(outcomes[i]!);
  }

  private attempt(sql: string, params: unknown[]): Promise<Outcome> {
    return this.raw(sql, ...params).then(
      (rows): Outcome => ({ ok: true, rows }),
      (error: unknown): Outcome => ({ ok: false, error }),
    );
  }

  /** Nothing of the batch was committed: every statement of it rejects. */
  private fail(batch: Batch, error: unknown): void {
    for (const statement of [...batch.statements, ...batch.conditionals])
      statement.settle({ ok: false, error });
  }
}
