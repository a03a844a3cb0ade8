import { Type, TypeGuard, type Static, type TObject, type TSchema } from '@sinclair/typebox';

// A REST response body is declared once, as a table of its fields: the table gives both the JSON
// Schema the row serialises with and the mapper from the GraphQL result. A field whose value is its
// GraphQL field's (`due_date` from `dueDate`) names only its schema; the others say how they are
// computed. One table keeps the schema's key order and the mapper's in step (event payloads are
// JSON.stringify'd from the mapper, responses serialised in the schema's order).

/** A field computed from the GraphQL record rather than read from its camelCase namesake. */
export type Computed<S, T extends TSchema = TSchema> = { schema: T; from: (source: S) => Static<T> | undefined };

/** Makes a computed field; for an optional field (Type.Optional), `from` answering undefined leaves it out. */
export type Field<S> = <T extends TSchema>(
  schema: T,
  from: (source: S) => NoInfer<Static<T>> | undefined,
) => Computed<S, T>;

const field = <S, T extends TSchema>(schema: T, from: (source: S) => Static<T> | undefined): Computed<S, T> => ({
  schema,
  from,
});

type Camel<K extends string> = K extends `${infer Head}_${infer Tail}` ? `${Head}${Capitalize<Camel<Tail>>}` : K;

type SchemaOf<F> = F extends Computed<any, infer T> ? T : F extends TSchema ? F : never;

/**
 * Each field is a Computed one, or a schema whose camelCase name is a field of the source with a value
 * the schema describes; anything else is a type error naming the field.
 */
type Checked<S, F> = {
  [K in keyof F]: F[K] extends Computed<S, TSchema>
    ? F[K]
    : Camel<K & string> extends keyof S
      ? S[Camel<K & string>] extends Static<SchemaOf<F[K]>>
        ? F[K]
        : `the GraphQL value of ${Camel<K & string>} does not fit its schema: compute it with field()`
      : `no GraphQL field ${Camel<K & string>}: compute it with field()`;
};

export type Shape<S, F> = {
  schema: TObject<{ [K in keyof F]: SchemaOf<F[K]> }>;
  map: (source: S) => { [K in keyof F]: Static<SchemaOf<F[K]>> };
};

const camel = (key: string) => key.replace(/_([a-z])/g, (_match, letter: string) => letter.toUpperCase());

const isComputed = <S>(spec: TSchema | Computed<S>): spec is Computed<S> =>
  typeof (spec as Computed<S>).from === 'function';

/**
 * The shape of a GraphQL record type `S`, named by the type of `field`:
 * `restShape((field: Field<RestRequestFragment>) => ({ id: Type.String(), owner_id: field(Type.String(), (r) =>
 * r.owner.id), … }))`
 */
export function restShape<S, F extends Record<string, TSchema | Computed<S, any>>>(
  build: (field: Field<S>) => F & Checked<S, F>,
): Shape<S, F> {
  const entries = Object.entries(build(field) as Record<string, TSchema | Computed<S>>);
  const schema = Type.Object(
    Object.fromEntries(entries.map(([key, spec]) => [key, isComputed(spec) ? spec.schema : spec])) as Record<
      string,
      TSchema
    >,
  );
  // Each key's value: its source field (the camelCase name), or its computation.
  const fields = entries.map(([key, spec]) => ({
    key,
    from: isComputed(spec) ? spec.from : (source: S) => (source as Record<string, unknown>)[camel(key)],
    optional: isComputed(spec) && TypeGuard.IsOptional(spec.schema),
  }));
  // Keys are assigned one by one in table order: bodies share one hidden class and keep the table's key
  // order (a copy of a template of every key was 4x slower for wide bodies). An optional field left undefined is
  // left out.
  const map = (source: S) => {
    const body: Record<string, unknown> = {};
    for (const { key, from, optional } of fields) {
      const value = from(source);
      if (!optional || value !== undefined) body[key] = value;
    }
    return body;
  };
  return { schema, map } as Shape<S, F>;
}
