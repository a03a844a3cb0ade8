import { Query, type QueryConfig } from 'pg';
import { prepareValue } from 'pg/lib/utils';
import { Pipeline, writeHeld, writeSimple, type Connection } from './pipeline';

/** A statement as lean.ts sends it to a `pg` client: a config, or a `Query` whose rows it takes as they arrive. */
export type StatementConfig = { text: string; values: readonly unknown[]; rowMode?: 'array'; name?: string };
export type Statement = StatementConfig | Query;

/**
 * What a lean transaction sends with a statement, in the same round trip: `begin` before it with its
 * first, `held` writes before it (those `writeAtCommit` held: unnamed, or named and parsed on the
 * connection already), `commit` after it with its last.
 */
export type Brackets = { before?: string; after?: string; held?: readonly StatementConfig[] };

type PgResult = { rows: unknown[]; fields: { name: string }[] };

// The members of pg's Query (8.x) used below; pg's types leave them out.
type QueryInternals = {
  text: string;
  values?: readonly unknown[];
  name?: string;
  types?: unknown[];
  portal: string;
  binary?: boolean;
  queryMode?: 'extended';
  _results: PgResult | PgResult[];
  prepare(connection: Connection): void;
  hasBeenParsed(connection: Connection): boolean;
  handleError(err: Error, connection: Connection): void;
  handleReadyForQuery(connection: Connection): void;
};

/**
 * Has pg send `query` with `begin` before it and/or `commit` after it, and the writes `held` for it
 * before it, in the same round trip. A statement with parameters or a name, or with held writes,
 * goes in one message of the extended protocol, each statement its own Parse (unless prepared), Bind
 * and Execute, one Sync at the end (what pg's `Query.prepare` sends for the statement alone, pg 8.x);
 * one alone without either goes as pg sends it, a simple query, with the brackets joined to its
 * text; a pipeline of statements (kernel/db/pipeline.ts) writes them around its own.
 * Either way PostgreSQL runs them in order and skips the rest after an error, so a failed statement never
 * commits. The brackets' and held writes' results are taken out of the answer: the query's rows,
 * events and result are its statement's own. A named statement not yet parsed on the connection is
 * parsed first, so that the first ParseComplete pg sees is its own (pg records the statement as
 * parsed at the first); held writes must be parsed already for the same reason.
 */
function bracket(query: Query, { before, after, held = [] }: Brackets): Query {
  if (query instanceof Pipeline) {
    // A pipeline writes its brackets itself, and hands rows over by statement: its results stay as they are.
    query.before = before;
    query.after = after;
    query.held = held;
    return query;
  }
  const self = query as unknown as QueryInternals;
  if (!self.name && !self.values?.length && !held.length) {
    self.text = [before, self.text, after].filter(Boolean).join(';\n');
  } else {
    self.queryMode = 'extended';
    self.prepare = (connection) => {
      const named = Boolean(self.name);
      if (named && !self.hasBeenParsed(connection)) {
        connection.parse({ text: self.text, name: self.name, types: self.types });
        connection.submittedNamedStatements[self.name!] = self.text;
      }
      try {
        if (before) writeSimple(connection, before);
        for (const write of held) writeHeld(connection, write);
        if (!named) connection.parse({ text: self.text, types: self.types });
        connection.bind({ portal: self.portal, statement: self.name, values: self.values, binary: self.binary, valueMapper: prepareValue });
      } catch (err) {
        // As pg does: a value that cannot be sent fails the statement before it runs.
        connection.close({ type: 'S', name: self.name });
        connection.sync();
        self.handleError(err as Error, connection);
        return;
      }
      connection.describe({ type: 'P', name: self.portal || '' });
      connection.execute({ portal: self.portal });
      if (after) writeSimple(connection, after);
      connection.sync();
    };
  }
  const skipped = (before ? 1 : 0) + held.length;
  const ready = self.handleReadyForQuery;
  self.handleReadyForQuery = (connection) => {
    // pg answers several results as a list: the brackets' and held writes' come first, `commit`'s last.
    if (Array.isArray(self._results)) {
      const own = self._results.slice(skipped, after ? -1 : undefined);
      self._results = own.length === 1 ? own[0] : own;
    }
    ready.call(self, connection);
  };
  return query;
}

type Client = { query(query: Query): unknown };

/**
 * Sends `statement` on `client` with its `brackets` in the same round trip, as `client.query` would
 * send it alone: a config is answered with a promise of its result, a `Query` is returned and
 * reports through its own events.
 */
export function queryBracketed(client: Client, statement: Statement, brackets: Brackets): Promise<PgResult | PgResult[]> | Query {
  if (statement instanceof Query) {
    client.query(bracket(statement, brackets));
    return statement;
  }
  return new Promise((resolve, reject) => {
    const query = new Query({ ...statement, values: statement.values as unknown[] } as QueryConfig, (err: Error | undefined, result: unknown) => (err ? reject(err) : resolve(result as PgResult | PgResult[])));
    client.query(bracket(query, brackets));
  });
}
