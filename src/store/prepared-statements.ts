/**
 * Named prepared statements for the statements a process sends again and again (issue 22).
 *
 * node-postgres sends every statement unnamed, so PostgreSQL parses, analyses and plans each one per
 * request: for a listing page that was more of the database's time than running it. Here every pooled
 * connection's `query` names a parameterised statement once its text has been seen
 * {@link PROMOTE_AFTER} times in this process: the connection then parses it once and afterwards only
 * binds and executes it. The set of named texts is bounded ({@link MAX_NAMED}): a process serving
 * endless distinct shapes (long `IN` lists, many filter combinations) names the first ones it repeats
 * and sends the rest unnamed, as before.
 *
 * Plans: the sessions run with `plan_cache_mode = force_custom_plan` (set by `connect`), so a named
 * statement with parameters is still planned per execution with its values, exactly as an unnamed
 * one: a generic plan cannot use the per-value estimates the listing strategies rely on
 * (docs/query-plans.md). What naming saves is parse and analysis, and the driver's and PostgreSQL's
 * per-statement set-up.
 *
 * Statements without parameters are left alone, but for a single `SELECT` (no `;` in its text):
 * node-postgres sends them in the simple protocol, which accepts several statements in one text
 * (migrations), where a named one would not. A named `SELECT` without parameters is planned once per
 * session, whatever `plan_cache_mode` says (PostgreSQL plans per execution only to use parameter
 * values: plancache.c `choose_custom_plan`), which is what the first page of the default listing needs
 * (job-queries.ts writes its constants into the text).
 */
import type pg from 'pg';

/** Executions of one text in this process before it is named. */
const PROMOTE_AFTER = 2;
/** Most distinct texts named by one process (each is kept once per PostgreSQL session). */
const MAX_NAMED = 300;
/** Most texts counted while waiting for promotion; the counts restart when it is reached. */
const MAX_COUNTED = 5_000;

/** Which statement texts are named, and how often the others have been seen. */
export class StatementNames {
  readonly #named = new Map<string, string>();
  readonly #seen = new Map<string, number>();

  /** The name to send `text` under, or undefined to send it unnamed. */
  nameOf(text: string): string | undefined {
    const name = this.#named.get(text);
    if (name !== undefined || this.#named.size >= MAX_NAMED) return name;
    const seen = (this.#seen.get(text) ?? 0) + 1;
    if (seen < PROMOTE_AFTER) {
      if (this.#seen.size >= MAX_COUNTED) this.#seen.clear();
      this.#seen.set(text, seen);
      return undefined;
    }
    this.#seen.delete(text);
    const promoted = `jl_${this.#named.size + 1}`;
    this.#named.set(text, promoted);
    return promoted;
  }

  /** How many texts are named (for tests and the bench). */
  get size(): number {
    return this.#named.size;
  }
}

type Query = (...args: unknown[]) => unknown;

/** True for the text of one `SELECT` (see the module comment): naming it cannot turn a script into an error. */
function isOneSelect(text: string): boolean {
  return /^\s*select\b/i.test(text) && !text.includes(';');
}

/**
 * Make every connection `pool` opens send repeated parameterised statements as named prepared
 * statements (see the module comment). Call once, before the pool's first connection.
 */
export function prepareRepeatedStatements(pool: pg.Pool, names = new StatementNames()): StatementNames {
  pool.on('connect', (client: pg.PoolClient) => {
    const query = client.query.bind(client) as Query;
    (client as unknown as { query: Query }).query = (...args: unknown[]) => {
      const [text, values] = args;
      if (typeof text === 'string' && Array.isArray(values) && args.length === 2 && (values.length > 0 || isOneSelect(text))) {
        const name = names.nameOf(text);
        if (name !== undefined) return query({ name, text, values });
      }
      return query(...args);
    };
  });
  return names;
}
