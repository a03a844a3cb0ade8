import { Query, type QueryConfig } from 'pg';
import { prepareValue } from 'pg/lib/utils';

/**
 * A statement as lean.ts sends it to a `pg` client: a config, or a `Query` whose rows it takes as
 * they arrive. A config's `together` are more statements (unnamed) sent after it in the same round
 * trip, their results after its own (lean.ts's `findLeanTogether`).
 */
export type StatementConfig = { text: string; values: readonly unknown[]; rowMode?: 'array'; name?: string; together?: readonly StatementConfig[] };
export type Statement = StatementConfig | Query;

/**
 * What a lean transaction sends with a statement, in the same round trip: `begin` before it with its
 * first, `held` writes before it (those `writeAtCommit` held: unnamed, or named and parsed on the
 * connection already), `commit` after it with its last.
 */
export type Brackets = { before?: string; after?: string; held?: readonly StatementConfig[] };

type PgResult = { rows: unknown[]; fields: { name: string }[] };

// The members of pg's Query (8.x) and of its connection used below; pg's types leave them out.
type Connection = {
  parse(message: { text: string; name?: string; types?: unknown[] }): void;
  bind(message: { portal?: string; statement?: string; values?: readonly unknown[]; binary?: boolean; valueMapper?: typeof prepareValue }): void;
  describe(message: { type: 'P'; name: string }): void;
  execute(message: { portal?: string }): void;
  close(message: { type: 'S'; name?: string }): void;
  sync(): void;
  submittedNamedStatements: Record<string, string>;
  parsedStatements: Record<string, string>;
};
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

/** One Parse, Bind and Execute of a statement without parameters or rows (`begin`, `commit`), on the unnamed statement and portal. */
function simple(connection: Connection, text: string): void {
  connection.parse({ text });
  connection.bind({});
  connection.execute({});
}

/** One statement's Bind and Execute (and Parse when unnamed), its rows described only when `rows`. */
function statement(connection: Connection, config: StatementConfig, rows: boolean): void {
  if (!config.name) connection.parse({ text: config.text });
  connection.bind({ statement: config.name, values: config.values, valueMapper: prepareValue });
  if (rows) connection.describe({ type: 'P', name: '' });
  connection.execute({});
}

/**
 * Has pg send `query` with `begin` before it and/or `commit` after it, the writes `held` for it
 * before it and the statements `together` after it, in the same round trip. A statement with
 * parameters or a name, or with others, goes in one message of the extended protocol, each statement
 * its own Parse (unless prepared), Bind and Execute, one Sync at the end (what pg's `Query.prepare`
 * sends for the statement alone, pg 8.x); one alone without either goes as pg sends it, a simple
 * query, with the brackets joined to its text. Either way PostgreSQL runs them in order and skips the
 * rest after an error, so a failed statement never commits. The brackets' and held writes' results
 * are taken out of the answer: the query's rows, events and result are its statement's own (and its
 * `together`'s, in order). A named statement not yet parsed on the connection is parsed first, so
 * that the first ParseComplete pg sees is its own (pg records the statement as parsed at the first);
 * held writes must be parsed already for the same reason.
 */
function bracket(query: Query, { before, after, held = [] }: Brackets, together: readonly StatementConfig[] = []): Query {
  const self = query as unknown as QueryInternals;
  if (!self.name && !self.values?.length && !held.length && !together.length) {
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
        if (before) simple(connection, before);
        for (const write of held) statement(connection, write, false);
        if (!named) connection.parse({ text: self.text, types: self.types });
        connection.bind({ portal: self.portal, statement: self.name, values: self.values, binary: self.binary, valueMapper: prepareValue });
        connection.describe({ type: 'P', name: self.portal || '' });
        connection.execute({ portal: self.portal });
        for (const next of together) statement(connection, next, true);
      } catch (err) {
        // As pg does: a value that cannot be sent fails the statement before it runs.
        connection.close({ type: 'S', name: self.name });
        connection.sync();
        self.handleError(err as Error, connection);
        return;
      }
      if (after) simple(connection, after);
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
  const { together, ...config } = statement;
  return new Promise((resolve, reject) => {
    const query = new Query({ ...config, values: config.values as unknown[] } as QueryConfig, (err: Error | undefined, result: unknown) => (err ? reject(err) : resolve(result as PgResult | PgResult[])));
    client.query(bracket(query, brackets, together));
  });
}
