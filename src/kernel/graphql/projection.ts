import {
  getNamedType,
  isAbstractType,
  isObjectType,
  Kind,
  type FieldNode,
  type GraphQLNamedType,
  type GraphQLObjectType,
  type GraphQLResolveInfo,
  type GraphQLSchema,
  type SelectionSetNode,
} from 'graphql';

/**
 * What a field's records must carry for the document to be answered: the properties its selection
 * reads. Loaders read only those columns (kernel/db/loaders.ts): the bench's list request allocates
 * 774-779 KB instead of 887, and PostgreSQL sends and `pg` parses a third of the columns.
 *
 * A field without a resolver reads the record's property of its name. A field with one reads what
 * its resolver declares with `reads`; a resolver that declares nothing may read anything, so its
 * record is read whole. Interfaces and unions declare what their `__resolveType` reads the same way.
 */
export type Properties = ReadonlySet<string> | null;

const NEEDS = Symbol('reads');

type Declared = { [NEEDS]?: readonly string[] };

// What the schema's fields and abstract types read, from their resolvers' declarations: the schema
// builder wraps the resolvers of types that several modules extend, so the declarations are looked
// up from the schema's objects rather than from the functions it calls.
const declared = new WeakMap<object, readonly string[]>();

/** Takes over the declarations (`reads`, `resolvesTypeFrom`) of the resolvers a schema was built from. */
export function declareReads(schema: GraphQLSchema, resolvers: readonly Record<string, unknown>[]): void {
  for (const map of resolvers) {
    for (const [typeName, fields] of Object.entries(map)) {
      const type = schema.getType(typeName);
      if (!type || typeof fields !== 'object' || fields === null) continue;
      for (const [fieldName, resolver] of Object.entries(fields)) {
        const properties = (resolver as Declared | null)?.[NEEDS];
        if (!properties) continue;
        if (fieldName === '__resolveType' && isAbstractType(type)) declared.set(type, properties);
        else if (isObjectType(type) && type.getFields()[fieldName])
          declared.set(type.getFields()[fieldName], properties);
      }
    }
  }
}

/** A resolver's signature, as graphql-codegen's `typescript-resolvers` writes it. */
type ResolverFn<TResult, TParent, TContext, TArgs> = (
  parent: TParent,
  args: TArgs,
  context: TContext,
  info: GraphQLResolveInfo,
) => Promise<TResult> | TResult;

/**
 * Declares the properties of its parent record a resolver (or a `__resolveType`) reads. Typed as the
 * generated resolvers are, so the resolver's parameters take their types from where it is used.
 */
export function reads<TResult, TParent, TContext, TArgs>(
  properties: readonly string[],
  resolver: ResolverFn<TResult, TParent, TContext, TArgs>,
): ResolverFn<TResult, TParent, TContext, TArgs> {
  return resolvesTypeFrom(properties, resolver);
}

/** The same for an interface's or union's `__resolveType` (or any function a schema calls with the record). */
export function resolvesTypeFrom<F extends (...args: any[]) => unknown>(
  properties: readonly string[],
  resolveType: F,
): F {
  (resolveType as Declared)[NEEDS] = properties;
  return resolveType;
}

type Info = Pick<GraphQLResolveInfo, 'fieldNodes' | 'returnType' | 'schema' | 'fragments'>;

const known = new WeakMap<readonly FieldNode[], Properties>();

/**
 * The properties the records a field returns must carry: the field's own selection (its fragments
 * included) on the type it returns; null when some selected field reads the record whole. Computed
 * once per field of a document.
 */
export function selectedProperties(info: Info): Properties {
  return memo(info, () => collect(info, getNamedType(info.returnType), selectionsOf(info.fieldNodes)));
}

/** The same for a connection's records: what `nodes` and `edges { node }` select. */
export function selectedNodeProperties(info: Info): Properties {
  return memo(info, () => {
    const connection = getNamedType(info.returnType);
    if (!isObjectType(connection)) return null;
    const nodesType = getNamedType(connection.getFields().nodes?.type);
    if (!nodesType) return null;
    const nodes = subselections(info, connection, selectionsOf(info.fieldNodes), 'nodes');
    const edgeType = getNamedType(connection.getFields().edges?.type);
    const edges = isObjectType(edgeType)
      ? subselections(info, edgeType, subselections(info, connection, selectionsOf(info.fieldNodes), 'edges'), 'node')
      : [];
    return collect(info, nodesType, [...nodes, ...edges]);
  });
}

function memo(info: Info, compute: () => Properties): Properties {
  let properties = known.get(info.fieldNodes);
  if (properties === undefined) {
    properties = compute();
    known.set(info.fieldNodes, properties);
  }
  return properties;
}

const selectionsOf = (nodes: readonly FieldNode[]) =>
  nodes.flatMap((node) => (node.selectionSet ? [node.selectionSet] : []));

/** Every field node of `sets` on `type`, fragments expanded where their condition may apply. */
function fieldsOn(info: Info, type: GraphQLObjectType, sets: readonly SelectionSetNode[]): FieldNode[] {
  const fields: FieldNode[] = [];
  const applies = (condition: string | undefined) => {
    if (!condition || condition === type.name) return true;
    const conditionType = info.schema.getType(condition);
    return !!conditionType && isAbstractType(conditionType) && info.schema.isSubType(conditionType, type);
  };
  const walk = (set: SelectionSetNode) => {
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) fields.push(selection);
      else if (selection.kind === Kind.INLINE_FRAGMENT) {
        if (applies(selection.typeCondition?.name.value)) walk(selection.selectionSet);
      } else {
        const fragment = info.fragments[selection.name.value];
        if (fragment && applies(fragment.typeCondition.name.value)) walk(fragment.selectionSet);
      }
    }
  };
  sets.forEach(walk);
  return fields;
}

function subselections(
  info: Info,
  type: GraphQLObjectType,
  sets: readonly SelectionSetNode[],
  name: string,
): SelectionSetNode[] {
  return fieldsOn(info, type, sets).flatMap((field) =>
    field.name.value === name && field.selectionSet ? [field.selectionSet] : [],
  );
}

function collect(info: Info, type: GraphQLNamedType | undefined, sets: readonly SelectionSetNode[]): Properties {
  if (!type) return null;
  const properties = new Set<string>(['id']);
  const objectTypes = isObjectType(type) ? [type] : isAbstractType(type) ? [...info.schema.getPossibleTypes(type)] : [];
  if (objectTypes.length === 0) return null;
  if (isAbstractType(type)) {
    const reads = declared.get(type);
    if (!reads) return null;
    reads.forEach((property) => properties.add(property));
  }
  for (const objectType of objectTypes) {
    const fields = objectType.getFields();
    for (const node of fieldsOn(info, objectType, sets)) {
      const name = node.name.value;
      if (name === '__typename') continue;
      const field = fields[name];
      if (!field) continue;
      if (!field.resolve) {
        properties.add(name);
        continue;
      }
      const reads = declared.get(field);
      if (!reads) return null;
      reads.forEach((property) => properties.add(property));
    }
  }
  return properties;
}
