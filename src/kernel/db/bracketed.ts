import { Query } from 'pg';
import { prepareValue } from 'pg/lib/utils';

/** A statement as lean.ts sends it to a `pg` client. */
export type StatementConfig = { text: string; values: readonly unknown[]; rowMode?: 'array'; name?: string };

/** `begin` before a statement, `commit` after it: what a lean transaction sends with its first and last statement. */
export type Brackets = { before?: string; after?: string };

// The members of pg's Query (8.x) and of its connection that the subclass below uses; pg's types leave them out.
type Connection = {
  parse(message: { text: string; name?: string; types?: unknown[] }): void;
  bind(message: { portal?: string; statement?: string; values?: readonly unknown[]; binary?: boolean; valueMapper?: typeof prepareValue }): void;
  describe(message: { type: 'P'; name: string }): void;
  execute(message: { portal?: string }): void;
  close(message: { type: 'S'; name?: string }): void;
  sync(): void;
  submittedNamedStatements: Record<string, string>;
};
type QueryInternals = {
  text: string;
  values: readonly unknown[];
  name?: string;
  types?: unknown[];
  portal: string;
  binary?: boolean;
  hasBeenParsed(connection: Connection): boolean;
  handleError(err: Error, connection: Connection): void;
};

/** One Parse, Bind and Execute of a statement without parameters or rows (`begin`, `commit`), on the unnamed statement and portal. */
function simple(connection: Connection, text: string): void {
  connection.parse({ text });
  connection.bind({});
  connection.execute({});
}

/**
 * A statement sent with `begin` before it and/or `commit` after it in one message of the extended
 * protocol (each its own Parse, Bind and Execute, one Sync at the end): PostgreSQL runs them in
 * order and answers them together, so a transaction's `begin` and `commit` cost no round trip of
 * their own. After an error PostgreSQL skips the rest up to the Sync, so a failed statement never
 * commits. pg's `Query` sends a statement so, with the statement alone (`prepare`, pg 8.x); this
 * does the same around it. A named statement is parsed first, so that the first ParseComplete pg
 * sees is its own (pg records the statement as parsed on the connection at the first one).
 */
class BracketedQuery extends Query {
  constructor(
    config: StatementConfig & { callback: (err: Error | undefined, result: unknown) => void },
    private readonly brackets: Brackets,
  ) {
    super({ ...config, values: config.values as unknown[], queryMode: 'extended' } as never);
  }

  // Called by pg's Query.submit, inside its cork/uncork of the socket: everything goes out in one write.
  prepare(connection: Connection): void {
    const self = this as unknown as QueryInternals;
    const named = Boolean(self.name);
    if (named && !self.hasBeenParsed(connection)) {
      connection.parse({ text: self.text, name: self.name, types: self.types });
      connection.submittedNamedStatements[self.name!] = self.text;
    }
    if (this.brackets.before) simple(connection, this.brackets.before);
    if (!named) connection.parse({ text: self.text, types: self.types });
    try {
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
    if (this.brackets.after) simple(connection, this.brackets.after);
    connection.sync();
  }
}

type PgResult = { rows: unknown[]; fields: { name: string }[] };
type Client = { query(query: unknown): unknown };

/**
 * Sends `config` on `client` with its `brackets` in the same round trip and answers the statement's
 * own result. A statement without parameters or name may hold several (lean.ts's
 * `findLeanTogether`): it goes as a simple query, as pg sends it, its brackets joined to its text
 * (PostgreSQL then skips the rest of the text after a failed statement too), and its results come
 * back as the statement's.
 */
export async function queryBracketed(client: Client, config: StatementConfig, brackets: Brackets): Promise<PgResult | PgResult[]> {
  const { before, after } = brackets;
  if (!config.name && config.values.length === 0) {
    const text = [before, config.text, after].filter(Boolean).join(';\n');
    const results = (await (client as { query(config: StatementConfig): Promise<PgResult | PgResult[]> }).query({ ...config, text })) as PgResult[];
    if (!before && !after) return results;
    const own = results.slice(before ? 1 : 0, after ? -1 : undefined);
    return own.length === 1 ? own[0] : own;
  }
  const results = await new Promise<PgResult | PgResult[]>((resolve, reject) => {
    client.query(new BracketedQuery({ ...config, callback: (err, result) => (err ? reject(err) : resolve(result as PgResult | PgResult[])) }, brackets));
  });
  // pg answers one result alone, several as a list (the brackets' own come first and last).
  return Array.isArray(results) ? results[before ? 1 : 0] : results;
}
