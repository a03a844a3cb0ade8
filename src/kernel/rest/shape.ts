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
  // Generated straight-line code, as lean.ts does for rows: a loop over getters mapped a request
  // about ten times slower than a hand-written mapper, which a 100-request list would feel. The code
  // holds the keys only as quoted literals and the computations by index. Without optional fields the
  // body is one object literal (V8 lays it out at once); with them, keys are set one by one, in table
  // order still.
  const computations: Computed<S>['from'][] = [];
  const valueOf = (key: string, spec: TSchema | Computed<S>) => {
    if (!isComputed(spec)) return `source[${JSON.stringify(camel(key))}]`;
    computations.push(spec.from);
    return `from[${computations.length - 1}](source)`;
  };
  const optional = (spec: TSchema | Computed<S>) => isComputed(spec) && TypeGuard.IsOptional(spec.schema);
  const code = entries.some(([, spec]) => optional(spec))
    ? `const body = {}; let value; ${entries
        .map(([key, spec]) => {
          const target = `body[${JSON.stringify(key)}]`;
          return optional(spec)
            ? `value = ${valueOf(key, spec)}; if (value !== undefined) ${target} = value;`
            : `${target} = ${valueOf(key, spec)};`;
        })
        .join(' ')} return body;`
    : `return { ${entries.map(([key, spec]) => `${JSON.stringify(key)}: ${valueOf(key, spec)}`).join(', ')} };`;
  const map = new Function('from', `return function map(source) { ${code} };`)(computations);
  return { schema, map } as Shape<S, F>;
}
