import {
  getNamedType,
  isAbstractType,
  getNullableType,
  isEnumType,
  isInputObjectType,
  isLeafType,
  isListType,
  isNonNullType,
  isObjectType,
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputObjectType,
  type GraphQLInputType,
  type GraphQLObjectType,
  type GraphQLOutputType,
  type GraphQLSchema,
} from 'graphql';

/** Where an ID sits in a root field's arguments: `id`, `input.items.eSignature.contractId`. */
export type IdPosition = { field: string; root: 'Query' | 'Mutation'; path: string[]; list: boolean };

export const positionName = (p: IdPosition) => `${p.root}.${p.field}(${p.path.join('.')})`;

/** Every ID (or list of IDs) a root field accepts, at any depth of its input objects. */
export function idPositions(schema: GraphQLSchema): IdPosition[] {
  const positions: IdPosition[] = [];
  const walk = (root: IdPosition['root'], field: string, type: GraphQLInputType, path: string[], seen: string[]) => {
    const named = getNamedType(type);
    if (named.name === 'ID') {
      positions.push({ root, field, path, list: isListType(getNullableType(type)) });
      return;
    }
    if (!isInputObjectType(named) || seen.includes(named.name)) return;
    for (const inner of Object.values(named.getFields()))
      walk(root, field, inner.type, [...path, inner.name], [...seen, named.name]);
  };
  for (const root of [schema.getQueryType()!, schema.getMutationType()!]) {
    for (const field of Object.values(root.getFields())) {
      for (const arg of field.args) walk(root.name as IdPosition['root'], field.name, arg.type, [arg.name], []);
    }
  }
  return positions;
}

/** A value of a leaf type that every check of the service accepts (never an id: those are chosen). */
function leafValue(typeName: string, type: GraphQLInputType): unknown {
  const named = getNamedType(type);
  if (isEnumType(named)) return named.getValues()[0].value;
  switch (typeName) {
    case 'String':
      return 'x';
    case 'Int':
    case 'Float':
      return 1;
    case 'Boolean':
      return false;
    case 'URL':
      return 'https://example.com/hook';
    case 'DateTime':
      return '2030-01-01T00:00:00.000Z';
    case 'JSON':
      return {};
    default:
      throw new Error(
        `no minimal value for the scalar ${typeName}: add one to leafValue in test/support/graphql-schema.ts`,
      );
  }
}

/**
 * The smallest value of `type` that fills its required fields; `pick` chooses ids (by their path).
 * Throws for a required ID that `pick` cannot name, so a new required reference gets a home.
 */
export function minimalValue(type: GraphQLInputType, path: string[], pick: (path: string[]) => string): unknown {
  const inner = getNullableType(type) as GraphQLInputType;
  if (isListType(inner)) return [minimalValue(inner.ofType, path, pick)];
  const named = getNamedType(inner);
  if (named.name === 'ID') return pick(path);
  if (!isInputObjectType(named)) return leafValue(named.name, named);
  const value: Record<string, unknown> = {};
  for (const field of Object.values(named.getFields())) {
    if (isNonNullType(field.type) && field.defaultValue === undefined)
      value[field.name] = minimalValue(field.type, [...path, field.name], pick);
  }
  return value;
}

/**
 * Sets `value` at `path` inside `args` (the variables of one field), building the objects and
 * one-element lists on the way; a oneOf input keeps only the member on the path.
 */
export function setAt(
  field: GraphQLField<unknown, unknown>,
  args: Record<string, unknown>,
  path: string[],
  value: unknown,
  pick: (path: string[]) => string,
) {
  const arg = field.args.find((a) => a.name === path[0]) as GraphQLArgument;
  const build = (type: GraphQLInputType, current: unknown, rest: string[], at: string[]): unknown => {
    const inner = getNullableType(type) as GraphQLInputType;
    if (rest.length === 0) return isListType(inner) ? [value] : value;
    if (isListType(inner)) {
      const element = Array.isArray(current) && current.length ? current[0] : undefined;
      return [build(inner.ofType, element, rest, at)];
    }
    const named = getNamedType(inner);
    if (!isInputObjectType(named)) throw new Error(`${at.join('.')} is not an input object`);
    const base =
      (current as Record<string, unknown> | undefined) ?? (minimalValue(named, at, pick) as Record<string, unknown>);
    const object: Record<string, unknown> = named.isOneOf ? {} : { ...base };
    const [key, ...tail] = rest;
    const member = named.getFields()[key];
    if (named.isOneOf && isInputObjectType(getNamedType(member.type)) && tail.length === 0)
      throw new Error('oneOf member set whole');
    object[key] = build(member.type, named.isOneOf ? undefined : base[key], tail, [...at, key]);
    return object;
  };
  args[path[0]] = build(arg.type, args[path[0]], path.slice(1), [path[0]]);
}

/** A selection that shows how a field answered: its user errors when it has them, else its type. */
export function answerSelection(field: GraphQLField<unknown, unknown>): string {
  const type = getNamedType(field.type);
  if (isLeafType(type)) return '';
  if (isObjectType(type) && type.getFields().userErrors) return '{ userErrors { field message code } }';
  if (isObjectType(type) && type.getFields().totalCount) return '{ totalCount }';
  return '{ __typename }';
}

/** A document calling one root field with its arguments as variables of the same names. */
export function fieldDocument(root: 'Query' | 'Mutation', field: GraphQLField<unknown, unknown>): string {
  const declared = field.args.map((a) => `$${a.name}: ${a.type}`).join(', ');
  const passed = field.args.map((a) => `${a.name}: $${a.name}`).join(', ');
  const operation = root === 'Query' ? 'query' : 'mutation';
  return `${operation}${declared ? `(${declared})` : ''} { ${field.name}${passed ? `(${passed})` : ''} ${answerSelection(field)} }`;
}

/**
 * The `field` of the user error a value at `path` earns: lists add their index ("0": the matrix sends
 * one-element lists) and a oneOf member is left out, as the services report item fields at the same
 * place for every kind, which is also where REST's flat item bodies have them.
 */
export function userErrorPath(field: GraphQLField<unknown, unknown>, path: string[]): string[] {
  let type: GraphQLInputType = field.args.find((a) => a.name === path[0])!.type;
  const out = [path[0]];
  if (isListType(getNullableType(type))) out.push('0');
  for (const segment of path.slice(1)) {
    const named = getNamedType(type) as GraphQLInputObjectType;
    if (!named.isOneOf) out.push(segment);
    type = named.getFields()[segment].type;
    if (isListType(getNullableType(type))) out.push('0');
  }
  return out;
}

/**
 * Aliases a document of `deepSelection` may hold: under `node`, about 280 (each implementation's
 * fields under names of its own). Tests that send them raise `GRAPHQL_MAX_ALIASES` to this.
 */
export const DEEP_SELECTION_ALIASES = 300;

/**
 * A selection of everything under `type`: scalars, and objects and lists to `depth` levels, each
 * object type expanded once per document (so the document stays small and acyclic), connections
 * through `nodes` and `totalCount` with their largest page, abstract types through a fragment per
 * implementation. A connection inside a list is left out: each parent pages its own, one statement
 * per parent by design, so it is measured under a single parent (`request(id) { documents }`).
 * Records in `lists` each list field it selects (`Request.items`), for coverage checks.
 */
export function deepSelection(
  schema: GraphQLSchema,
  type: GraphQLOutputType,
  depth: number,
  lists: Set<string>,
  context: { expanded: Set<string>; underList: boolean } = { expanded: new Set(), underList: false },
  prefix = '',
): string {
  const named = getNamedType(type);
  if (isLeafType(named)) return '';
  if (isAbstractType(named)) {
    // Each implementation's fields under names of its own: same-named fields of different types
    // (an item's status, a request's status) may not share a response key.
    const parts = schema
      .getPossibleTypes(named)
      .map(
        (possible) =>
          `... on ${possible.name} ${deepSelection(schema, possible, depth, lists, context, `${possible.name}_`)}`,
      );
    return `{ __typename ${parts.join(' ')} }`;
  }
  const object = named as GraphQLObjectType;
  context.expanded.add(object.name);
  const selected: string[] = [];
  for (const field of Object.values(object.getFields())) {
    if (field.args.some((arg) => isNonNullType(arg.type) && arg.defaultValue === undefined)) continue;
    const inner = getNamedType(field.type);
    const key = prefix ? `${prefix}${field.name}: ${field.name}` : field.name;
    if (isLeafType(inner)) {
      selected.push(key);
      continue;
    }
    if (field.name === 'edges' && object.name.endsWith('Connection')) continue;
    const isConnection = inner.name.endsWith('Connection');
    if (isConnection && context.underList) continue;
    const innerTypes = isAbstractType(inner) ? schema.getPossibleTypes(inner).map((t) => t.name) : [inner.name];
    const args = field.args.some((arg) => arg.name === 'first') ? '(first: 100)' : '';
    const isList = isListType(getNullableType(field.type)) || isConnection;
    if (isList && !object.name.endsWith('Connection')) lists.add(`${object.name}.${field.name}`);
    if (depth === 0 || innerTypes.every((name) => context.expanded.has(name))) {
      // Still fetched, so the list's own loading is measured wherever it appears.
      if (isList && !object.name.endsWith('Connection'))
        selected.push(`${key}${args} { __typename${isConnection ? ' totalCount' : ''} }`);
      continue;
    }
    const inside = {
      expanded: context.expanded,
      underList: context.underList || isListType(getNullableType(field.type)),
    };
    selected.push(`${key}${args} ${deepSelection(schema, field.type, depth - 1, lists, inside)}`);
  }
  return `{ ${selected.join(' ')} }`;
}

/**
 * Every list or connection of objects a client can reach from Query (`Request.items`), connections' own `nodes` and
 * `edges` aside.
 */
export function reachableLists(schema: GraphQLSchema): string[] {
  const lists = new Set<string>();
  const seen = new Set<string>();
  const visit = (typeName: string) => {
    if (seen.has(typeName)) return;
    seen.add(typeName);
    const type = schema.getType(typeName)!;
    if (isAbstractType(type)) return schema.getPossibleTypes(type).forEach((t) => visit(t.name));
    if (!isObjectType(type)) return;
    for (const field of Object.values(type.getFields())) {
      const inner = getNamedType(field.type);
      if (isLeafType(inner)) continue;
      const isList = isListType(getNullableType(field.type)) || inner.name.endsWith('Connection');
      if (isList && !type.name.endsWith('Connection') && !field.args.some((arg) => isNonNullType(arg.type)))
        lists.add(`${type.name}.${field.name}`);
      visit(inner.name);
    }
  };
  visit(schema.getQueryType()!.name);
  return [...lists].sort();
}

/** Whether only a recipient's session may call a root field (`@recipientSession`); an API key calls the others. */
export const forRecipient = (field: GraphQLField<unknown, unknown>): boolean =>
  field.astNode?.directives?.some((d) => d.name.value === 'recipientSession') ?? false;
