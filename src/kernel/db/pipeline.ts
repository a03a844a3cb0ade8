import { Query } from 'pg';
import { prepareValue } from 'pg/lib/utils';

// The members of pg's connection (8.x) that the messages below are written with; pg's types leave them out.
type Connection = {
  parse(message: { text: string; name?: string }): void;
  bind(message: { statement?: string; values?: readonly unknown[] }): void;
  describe(message: { type: 'P'; name: string }): void;
  execute(message: { portal?: string }): void;
  sync(): void;
  submittedNamedStatements: Record<string, string>;
};

/**
 * A statement as lean.ts sends it: its text (`$n` placeholders), its parameters, its name when prepared, its rows as
 * arrays or objects.
 */
export type StatementConfig = { text: string; values: readonly unknown[]; rowMode?: 'array'; name?: string };

/**
 * What a lean transaction (kernel/db/transaction.ts) sends with a pipeline, in the same message:
 * `begin` before it with its first, `held` writes before it (those `writeAtCommit` held: unnamed, or
 * named and parsed on the connection already), `commit` after it with its last.
 */
type Brackets = { before?: string; after?: string; held?: readonly StatementConfig[] };

/** Where a pipeline's rows go: the index of their statement, the row (an array), its columns. */
type PipedRow = (statement: number, row: unknown[], fields: readonly { name: string }[]) => void;

type PgResult = { rows: unknown[]; fields: { name: string }[] };

/**
 * Statements with bind parameters in one message and one round trip: each its own Parse (but a
 * prepared one's), Bind, Describe and Execute, on the unnamed portal, one Sync after the last, and
 * its brackets around them (`bracket`). pg's client sends a query only once the previous one has
 * answered, so statements sent one by one on one connection each cost a round trip, and on several
 * connections a socket write and a PostgreSQL backend woken each: a list's owners, items and
 * recipients cost three of each, sent this way one; a lean transaction's `begin`, `commit` and held
 * writes none of their own. PostgreSQL runs them in order and, after an error, skips the rest until
 * the Sync: a failure fails the pipeline, and a failed statement never commits. Rows go to `onRow`
 * as they arrive, with their statement's index; without it they are kept in the statements' results
 * (`sendPipeline`), as `rowMode` asks.
 *
 * Only a pipeline of one statement may be named (prepared, kernel/db/lean.ts): pg records a query's
 * name as parsed at the first ParseComplete of its message, so a named statement not yet parsed on
 * the connection is parsed first, before the brackets; held writes must be parsed already.
 */
export class Pipeline extends Query {
  before?: string;
  after?: string;
  held: readonly StatementConfig[] = [];
  /** The statements' texts, joined, and the name of a pipeline of one prepared statement (set by pg's Query). */
  declare readonly text: string;
  declare readonly name?: string;
  // Members of pg's Query (8.x) that its types leave out.
  declare private _results: PgResult | PgResult[];
  declare private _canceledDueToError: unknown;
  declare private hasBeenParsed: (connection: Connection) => boolean;
  private completed = 0;

  constructor(
    private readonly statements: readonly StatementConfig[],
    onRow?: PipedRow,
    rowMode?: 'array',
  ) {
    super({
      text: statements.map((statement) => statement.text).join(';\n'),
      name: statements.length === 1 ? statements[0].name : undefined,
      rowMode: onRow ? 'array' : rowMode,
      queryMode: 'extended',
    } as never);
    // A statement's rows come before its CommandComplete: the completed ones, less the `begin` and the held writes, are
    // its index.
    if (onRow) this.on('row', (row: unknown[], result) => onRow(this.completed - this.leading, row, result!.fields));
  }

  /** Sends `brackets` with the pipeline, in its message. */
  bracket({ before, after, held = [] }: Brackets): this {
    this.before = before;
    this.after = after;
    this.held = held;
    return this;
  }

  /** How many statements go before the pipeline's own: `begin` and the held writes. */
  private get leading(): number {
    return (this.before ? 1 : 0) + this.held.length;
  }

  /** The statements' own results, without the brackets' and held writes'; an error when some did not answer. */
  results(): PgResult[] | Error {
    const answered = this.completed - this.leading - (this.after ? 1 : 0);
    if (answered !== this.statements.length)
      return new Error(`${this.statements.length} statements sent together, ${answered} answered`);
    // pg answers several results as a list, one per statement: the brackets' and held writes' first, `commit`'s last.
    return Array.isArray(this._results) ? this._results.slice(this.leading, this.leading + answered) : [this._results];
  }

  handleCommandComplete(message: unknown, connection: unknown): void {
    (Query.prototype as unknown as { handleCommandComplete(m: unknown, c: unknown): void }).handleCommandComplete.call(
      this,
      message,
      connection,
    );
    this.completed++;
  }

  /** Called by pg's `Query.submit`, with the connection's writes corked: one socket write for all. */
  prepare(connection: Connection): void {
    let held: unknown[][];
    let values: unknown[][];
    try {
      // Mapped before anything is written: a value pg cannot send fails the pipeline before it runs.
      held = this.held.map(parametersOf);
      values = this.statements.map(parametersOf);
    } catch (err) {
      this._canceledDueToError = err;
      connection.sync();
      return;
    }
    if (this.name && !this.hasBeenParsed(connection)) {
      connection.parse({ text: this.text, name: this.name });
      connection.submittedNamedStatements[this.name] = this.text;
    }
    if (this.before) writeSimple(connection, this.before);
    // A held write's rows are not asked for (no Describe): nobody reads them.
    this.held.forEach((write, index) => writeBound(connection, write, held[index], false));
    this.statements.forEach((statement, index) => writeBound(connection, statement, values[index], true));
    if (this.after) writeSimple(connection, this.after);
    connection.sync();
  }
}

/**
 * One Parse, Bind and Execute of a statement without parameters or rows (`begin`, `commit`), on the unnamed statement
 * and portal.
 */
function writeSimple(connection: Connection, text: string): void {
  connection.parse({ text });
  connection.bind({});
  connection.execute({});
}

/**
 * A statement's Parse (unless named: parsed on the connection already, see `Pipeline`), Bind, Describe when its rows
 * are asked for, and Execute.
 */
function writeBound(connection: Connection, statement: StatementConfig, values: unknown[], describe: boolean): void {
  if (!statement.name) connection.parse({ text: statement.text });
  connection.bind({ statement: statement.name, values });
  if (describe) connection.describe({ type: 'P', name: '' });
  connection.execute({});
}

/**
 * A Date as ISO text, the same instant to every column (all are `timestamptz`): pg writes one as
 * local time with its offset, field by field (`dateToString`), and a create binds about twenty.
 */
export const dateAsText = (value: unknown): unknown => (value instanceof Date ? value.toISOString() : value);

/** A statement's bind parameters as sent: a Date as ISO text, anything else as pg sends it. */
const parametersOf = (statement: StatementConfig): unknown[] =>
  statement.values.map((value) => prepareValue(dateAsText(value)));

type Client = { query(query: Pipeline): unknown };

/**
 * Runs one statement on `client`, with its brackets, answered as pg answers it alone: with its own
 * result (holding no rows when they go to `onRow` as they arrive). Never through pg's own path: with a value it cannot
 * send, pg has written a prepared statement's Parse (and a Close) and records it as parsed, so every later use on that
 * connection fails ("prepared statement … does not exist"); a pipeline writes nothing then.
 */
export function sendOne(
  client: Client,
  statement: StatementConfig,
  {
    brackets,
    onRow,
  }: { brackets?: Brackets; onRow?: (row: unknown[], fields: readonly { name: string }[]) => void } = {},
): Promise<PgResult> {
  const one = new Pipeline([statement], onRow && ((_, row, fields) => onRow(row, fields)), statement.rowMode);
  return sendPipeline(client, brackets ? one.bracket(brackets) : one).then(([result]) => result);
}

/** Runs `pipeline` on `client`; settles when its last statement has answered, with the statements' own results. */
export function sendPipeline(client: Client, pipeline: Pipeline): Promise<PgResult[]> {
  return new Promise((resolve, reject) => {
    pipeline.on('end', () => {
      const results = pipeline.results();
      if (results instanceof Error) reject(results);
      else resolve(results);
    });
    pipeline.on('error', reject);
    client.query(pipeline);
  });
}
