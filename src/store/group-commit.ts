// Group commit for the SQLite store: every statement sent to the connection within one turn of the
// event loop runs inside one transaction, and each statement's promise settles only once that
// transaction has committed. A synced commit costs the same for one write as for a hundred, so
// concurrent requests share it; each still hears back only after its own data is on disk, and no
// caller ever sees a value that is not committed yet (reads go to a second connection that only sees
// committed data, or without one wait for the commit too).
//
// Statements keep their own meaning inside the batch: a conditional INSERT is still decided by the
// database, and a statement that fails is undone on its own (SQLite's statement rollback) and
// rejects alone. If the commit fails, or a statement fails in a way that may have rolled back the
// whole transaction, the batch stops and every statement of it rejects: nothing of it was promised
// to anyone, and nothing runs outside the transaction.
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

/** A statement waiting for its batch: run, then settled once. */
interface Pending {
  sql: string;
  params: unknown[];
  settle: (outcome: Outcome) => void;
}

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
      })
      .catch(() => undefined); // run settles every statement itself; the next batch must still run
    return batch;
  }

  /**
   * Run one batch. Whatever goes wrong, every statement of it is settled exactly once (none is left
   * waiting, which would also stall every later batch behind it), and a statement is answered
   * "done" only by a commit that succeeded.
   */
  private async run(batch: Batch): Promise<void> {
    const all: Pending[] = [...batch.statements, ...batch.conditionals];
    const pending = new Set(all);
    const settle = (statement: Pending, outcome: Outcome) => {
      if (pending.delete(statement)) statement.settle(outcome);
    };
    const failAll = (error: unknown) => {
      for (const statement of [...pending]) settle(statement, { ok: false, error });
    };
    try {
      await this.runBatch(batch, all, settle, failAll);
    } catch (error) {
      failAll(error);
    }
  }

  private async runBatch(
    batch: Batch,
    all: Pending[],
    settle: (statement: Pending, outcome: Outcome) => void,
    failAll: (error: unknown) => void,
  ): Promise<void> {
    try {
      // IMMEDIATE: take the write lock at once (waiting out another connection, busyTimeout), so the
      // transaction never has to upgrade from read to write half-way and fail there.
      await this.raw('BEGIN IMMEDIATE');
    } catch (error) {
      failAll(error);
      return;
    }
    // One at a time, in the order sent (the connection would run them one at a time anyway), so a
    // failure that ends the whole transaction stops the batch before anything else runs outside it.
    const outcomes: Outcome[] = [];
    for (const { sql, params } of all) {
      const outcome = await this.attempt(sql, params);
      if (!outcome.ok && endsTransaction(outcome.error)) {
        // SQLite may have rolled the whole transaction back (a full disk, an I/O error, busy, out of
        // memory): what ran before is undone, and what follows would run outside any transaction,
        // each statement committing on its own. Stop here; nothing of the batch was done.
        await this.rollback();
        failAll(outcome.error);
        return;
      }
      outcomes.push(outcome);
    }
    try {
      // The follow-ups of each conditional write that ran, before the batch is committed; one that
      // fails cannot be undone alone, so it fails the whole batch.
      for (const [i, conditional] of batch.conditionals.entries()) {
        const outcome = outcomes[batch.statements.length + i];
        if (!outcome?.ok) continue;
        for (const [sql, params] of conditional.then(outcome.rows)) {
          const done = await this.attempt(sql, params);
          if (!done.ok) throw done.error;
        }
      }
      await this.raw('COMMIT');
    } catch (error) {
      await this.rollback();
      failAll(error);
      return;
    }
    for (const [i, statement] of all.entries()) {
      settle(statement, outcomes[i] ?? { ok: false, error: new Error('statement was not run') });
    }
  }

  private attempt(sql: string, params: unknown[]): Promise<Outcome> {
    return Promise.resolve()
      .then(() => this.raw(sql, ...params))
      .then(
        (rows): Outcome => ({ ok: true, rows }),
        (error: unknown): Outcome => ({ ok: false, error }),
      );
  }

  /** Undo what is left of the transaction; one that is already gone (or a rollback that fails) is fine. */
  private async rollback(): Promise<void> {
    await Promise.resolve()
      .then(() => this.raw('ROLLBACK'))
      .catch(() => undefined);
  }
}

/**
 * Errors after which SQLite may have rolled back the whole transaction, not only the statement (see
 * its documentation of transactions): the application is to roll back and treat it all as undone.
 */
function endsTransaction(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return false;
  return /^SQLITE_(FULL|IOERR|BUSY|NOMEM|INTERRUPT)/.test(code);
}
