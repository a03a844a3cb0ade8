import { Query } from 'pg';
import { prepareValue } from 'pg/lib/utils';

// The members of pg's connection (8.x) that the messages below are written with; pg's types leave them out.
export type Connection = {
  parse(message: { text: string; name?: string; types?: unknown[] }): void;
  bind(message: { portal?: string; statement?: string; values?: readonly unknown[]; binary?: boolean; valueMapper?: typeof prepareValue }): void;
  describe(message: { type: 'P'; name: string }): void;
  execute(message: { portal?: string }): void;
  close(message: { type: 'S'; name?: string }): void;
  sync(): void;
  submittedNamedStatements: Record<string, string>;
};

/** One Parse, Bind and Execute of a statement without parameters or rows (`begin`, `commit`), on the unnamed statement and portal. */
export function writeSimple(connection: Connection, text: string): void {
  connection.parse({ text });
  connection.bind({});
  connection.execute({});
}

/**
 * A write held for the next statement (kernel/db/transaction.ts): its Parse (unless prepared, and
 * then parsed on the connection already), Bind and Execute; no rows are asked of it.
 */
export function writeHeld(connection: Connection, write: { text: string; values: readonly unknown[]; name?: string }): void {
  if (!write.name) connection.parse({ text: write.text });
  connection.bind({ statement: write.name, values: write.values, valueMapper: prepareValue });
  connection.execute({});
}

/** A statement of a pipeline: its text (`$n` placeholders) and its parameters. */
export type PipedStatement = { text: string; values: readonly unknown[] };

/** Where a pipeline's rows go: the index of their statement, the row (an array), its columns. */
export type PipedRow = (statement: number, row: unknown[], fields: readonly { name: string }[]) => void;

/**
 * Several statements with bind parameters in one message and one round trip: each its own Parse,
 * Bind, Describe and Execute on the unnamed statement and portal, one Sync after the last (and
 * `begin` before them, `commit` after them, when kernel/db/bracketed.ts brackets the pipeline).
 * pg's client sends a query only once the previous one has answered, so statements sent one by one
 * on one connection each cost a round trip, and on several connections a socket write and a
 * PostgreSQL backend woken each: a list's owners, items and recipients cost three of each, sent
 * this way one. PostgreSQL runs them in order and, after an error, skips the rest until the Sync:
 * a failure fails the pipeline. Rows go to `onRow` as they arrive, with their statement's index.
 */
export class Pipeline extends Query {
  /** Sent before and after the statements, in the same message (kernel/db/bracketed.ts), the held writes after `before`. */
  before?: string;
  after?: string;
  held: readonly { text: string; values: readonly unknown[]; name?: string }[] = [];
  /** The statements' texts, joined (set by pg's Query). */
  declare readonly text: string;
  private completed = 0;

  constructor(
    private readonly statements: readonly PipedStatement[],
    onRow: PipedRow,
  ) {
    super({ text: statements.map((statement) => statement.text).join(';\n'), rowMode: 'array', queryMode: 'extended' } as never);
    // A statement's rows come before its CommandComplete: the completed ones, less the `begin` and the held writes, are its index.
    this.on('row', (row: unknown[], result) => onRow(this.completed - this.leading, row, result!.fields));
  }

  /** How many statements answered (brackets and held writes included). */
  get answered(): number {
    return this.completed;
  }

  /** How many statements go before the pipeline's own: `begin` and the held writes. */
  get leading(): number {
    return (this.before ? 1 : 0) + this.held.length;
  }

  handleCommandComplete(message: unknown, connection: unknown): void {
    (Query.prototype as unknown as { handleCommandComplete(m: unknown, c: unknown): void }).handleCommandComplete.call(this, message, connection);
    this.completed++;
  }

  /** Called by pg's `Query.submit`, with the connection's writes corked: one socket write for all. */
  prepare(connection: Connection): void {
    let values: unknown[][];
    try {
      // Mapped before anything is written: a value pg cannot send fails the pipeline before it runs.
      values = this.statements.map((statement) => statement.values.map(paramOf));
    } catch (err) {
      (this as unknown as { _canceledDueToError: unknown })._canceledDueToError = err;
      connection.sync();
      return;
    }
    if (this.before) writeSimple(connection, this.before);
    for (const write of this.held) writeHeld(connection, write);
    this.statements.forEach((statement, index) => {
      connection.parse({ text: statement.text });
      connection.bind({ values: values[index] });
      connection.describe({ type: 'P', name: '' });
      connection.execute({});
    });
    if (this.after) writeSimple(connection, this.after);
    connection.sync();
  }
}

/**
 * A Date as ISO text, the same instant to every column (all are `timestamptz`): pg writes one as
 * local time with its offset, field by field (`dateToString`), and a create binds about twenty.
 */
export const dateAsText = (value: unknown): unknown => (value instanceof Date ? value.toISOString() : value);

/** A bind parameter as sent: a Date as ISO text, anything else as pg sends it. */
const paramOf = (value: unknown): string | Buffer | null => prepareValue(dateAsText(value));

type Client = { query(query: Query): unknown };

/** Runs `statements` on `client` as one pipeline; settles when the last has answered. */
export function sendPipeline(client: Client, statements: readonly PipedStatement[], onRow: PipedRow): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const pipeline = new Pipeline(statements, onRow);
    pipeline.on('end', () => {
      const answered = pipeline.answered - pipeline.leading - (pipeline.after ? 1 : 0);
      if (answered === statements.length) resolve();
      else reject(new Error(`${statements.length} statements sent together, ${answered} answered`));
    });
    pipeline.on('error', reject);
    client.query(pipeline);
  });
}
