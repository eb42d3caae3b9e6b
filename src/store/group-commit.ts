// Group commit for the SQLite store: statements sent within one turn of the event loop share one
// transaction, and each promise settles only once it has committed, because a synced commit costs the
// same for one write as for a hundred. A statement that fails rejects alone; a failed commit rejects
// the whole batch. A conditional write commits with its follow-ups or not at all. Where the connection
// can run a script, a batch runs as three round trips whatever its size, falling back to statement by
// statement when the script fails. Details: docs/decisions/sqlite-group-commit.md.

import { inlineParameters } from './sql-inline.js';

export type Query = (sql: string, ...params: unknown[]) => Promise<unknown>;

/** Runs a script of several statements, without parameters or rows. */
export type Exec = (sql: string) => Promise<void>;

/** A batch's statements in the order sent; a conditional write carries what follows from it. */
interface Batch {
  entries: Array<{
    sql: string;
    params: unknown[];
    then?: (changed: boolean) => Statement[];
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
    private readonly exec?: Exec,
  ) {}

  /** Run one statement in the next batch; resolves with its rows once the batch has committed. */
  readonly query: Query = (sql, ...params) => {
    if (this.read && /^\s*SELECT\b/i.test(sql)) return this.read(sql, ...params);
    return new Promise((resolve, reject) => {
      const batch = this.batch();
      batch.entries.push({
        sql,
        params,
        settle: (outcome) => (outcome.ok ? resolve(outcome.rows) : reject(outcome.error)),
      });
    });
  };

  /**
   * Run `sql` (a write that answers no rows) in the next batch, then the statements `then` returns
   * for whether it changed a row, all in that batch's transaction; resolves with whether it changed a
   * row once the batch has committed.
   */
  conditional(sql: string, params: unknown[], then: (changed: boolean) => Statement[]): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.batch().entries.push({
        sql,
        params,
        then,
        settle: (outcome) => (outcome.ok ? resolve(outcome.rows === true) : reject(outcome.error)),
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
    const batch: Batch = { entries: [] };
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
    const all: Pending[] = batch.entries;
    const pending = new Set(all);
    const settle = (statement: Pending, outcome: Outcome) => {
      if (pending.delete(statement)) statement.settle(outcome);
    };
    const failAll = (error: unknown) => {
      for (const statement of [...pending]) settle(statement, { ok: false, error });
    };
    try {
      if (!(await this.runScripted(batch, settle, failAll))) await this.runBatch(batch, all, settle, failAll);
    } catch (error) {
      failAll(error);
    }
  }

  /**
   * The batch as three round trips (see the top of this file). False, with nothing of it left in the
   * database, when it cannot run that way or its first script failed: then it runs statement by
   * statement. Once past the first script, its outcome is final, as in runBatch.
   */
  private async runScripted(
    batch: Batch,
    settle: (statement: Pending, outcome: Outcome) => void,
    failAll: (error: unknown) => void,
  ): Promise<boolean> {
    if (!this.exec) return false;
    const lines = scriptOf(batch);
    if (lines === undefined) return false;
    try {
      await this.exec(script(lines));
    } catch {
      // Some statement failed (or the write lock was not had): undo all of it, and let runBatch find
      // which statement it was, failing that one alone.
      await this.rollback();
      return false;
    }
    try {
      const rows = (await this.raw(`SELECT i, changed FROM ${OUTCOMES}`)) as Array<{
        i: number;
        changed: number;
      }>;
      const changed = new Map(rows.map((row) => [row.i, row.changed > 0]));
      await this.commitScriptedFollowUps(batch, changed);
      for (const [i, entry] of batch.entries.entries()) {
        settle(entry, { ok: true, rows: entry.then ? changed.get(i) === true : [] });
      }
    } catch (error) {
      await this.rollback();
      failAll(error);
    }
    return true;
  }

  /**
   * The follow-ups of the scripted batch's conditional writes in order, written out where they can be
   * (one that can't is bound on its own), then the commit.
   */
  private async commitScriptedFollowUps(batch: Batch, changed: Map<number, boolean>): Promise<void> {
    const exec = this.exec!;
    let follow: string[] = [];
    for (const [i, { then }] of batch.entries.entries()) {
      for (const [sql, params] of then?.(changed.get(i) === true) ?? []) {
        const inlined = inlineParameters(sql, params);
        if (inlined !== undefined) {
          follow.push(inlined);
          continue;
        }
        if (follow.length > 0) await exec(script(follow));
        follow = [];
        await this.raw(sql, ...params);
      }
    }
    await exec(script([...follow, 'COMMIT']));
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
    const outcomes = await this.runEach(batch, failAll);
    if (outcomes === undefined) return;
    try {
      await this.commitFollowUps(batch, outcomes);
    } catch (error) {
      await this.rollback();
      failAll(error);
      return;
    }
    for (const [i, statement] of all.entries()) {
      settle(statement, outcomes[i] ?? { ok: false, error: new Error('statement was not run') });
    }
  }

  /**
   * The batch's statements inside its open transaction, one at a time in the order sent (the
   * connection would run them one at a time anyway), so a failure that ends the whole transaction
   * stops the batch before anything else runs outside it: then every statement is failed, and the
   * answer is undefined.
   */
  private async runEach(batch: Batch, failAll: (error: unknown) => void): Promise<Outcome[] | undefined> {
    const outcomes: Outcome[] = [];
    for (const { sql, params, then } of batch.entries) {
      let outcome = await this.attempt(sql, params);
      if (outcome.ok && then) {
        // A conditional write: whether it changed a row, asked on this connection right after it.
        const changes = await this.attempt('SELECT changes() AS n', []);
        outcome = changes.ok
          ? { ok: true, rows: ((changes.rows as Array<{ n: number }>)[0]?.n ?? 0) > 0 }
          : changes;
      }
      if (!outcome.ok && endsTransaction(outcome.error)) {
        // SQLite may have rolled the whole transaction back (a full disk, an I/O error, busy, out of
        // memory): what ran before is undone, and what follows would run outside any transaction,
        // each statement committing on its own. Stop here; nothing of the batch was done.
        await this.rollback();
        failAll(outcome.error);
        return undefined;
      }
      outcomes.push(outcome);
    }
    return outcomes;
  }

  /**
   * The follow-ups of each conditional write that ran, before the batch is committed, then the commit;
   * a follow-up that fails cannot be undone alone, so it throws and fails the whole batch.
   */
  private async commitFollowUps(batch: Batch, outcomes: Outcome[]): Promise<void> {
    for (const [i, { then }] of batch.entries.entries()) {
      const outcome = outcomes[i];
      if (!then || !outcome?.ok) continue;
      for (const [sql, params] of then(outcome.rows === true)) {
        const done = await this.attempt(sql, params);
        if (!done.ok) throw done.error;
      }
    }
    await this.raw('COMMIT');
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
 * The first script of a scripted batch: its statements written out, each conditional write followed by
 * the row that records whether it changed one; undefined when a statement cannot be written out.
 */
function scriptOf(batch: Batch): string[] | undefined {
  const lines = ['BEGIN IMMEDIATE', OUTCOMES_TABLE, `DELETE FROM ${OUTCOMES}`];
  for (const [i, { sql, params, then }] of batch.entries.entries()) {
    const inlined = answersNoRows(sql) ? inlineParameters(sql, params) : undefined;
    if (inlined === undefined) return undefined;
    lines.push(inlined);
    if (then) lines.push(`INSERT INTO ${OUTCOMES} (i, changed) VALUES (${i}, changes())`);
  }
  return lines;
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

/** Where a scripted batch notes whether each conditional write changed a row (this connection only). */
const OUTCOMES = 'temp.group_commit_outcomes';
const OUTCOMES_TABLE = `CREATE TEMP TABLE IF NOT EXISTS group_commit_outcomes (i INTEGER PRIMARY KEY, changed INTEGER)`;

/** A write that answers no rows: its answer is known without running it (an empty list). */
function answersNoRows(sql: string): boolean {
  return /^\s*(INSERT|UPDATE|DELETE|REPLACE)\b/i.test(sql) && !/\bRETURNING\b/i.test(sql);
}

/** Statements joined into one script (a trailing semicolon of their own is harmless). */
function script(lines: string[]): string {
  return `${lines.join(';\n')};`;
}
