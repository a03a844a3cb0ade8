import {
  defaultFieldResolver,
  getNamedType,
  isEnumType,
  isObjectType,
  type GraphQLEnumType,
  type GraphQLSchema,
} from 'graphql';

const isPromise = (value: unknown): value is PromiseLike<unknown> =>
  typeof (value as PromiseLike<unknown> | null)?.then === 'function';

/**
 * graphql-jit answers enums as the resolvers return them, without their serializers (JIT_OPTIONS in
 * plugin.ts): an enum whose values stand for others (Language's EN_US for `en-US`, WebhookTopic's
 * REQUEST_CREATED for `request.created`) would answer the value it stands for. The fields of such
 * enums answer the names themselves, and each such enum serializes a name as itself (graphql-js,
 * which runs a document's first time, serializes every leaf). Arguments and inputs keep the values
 * the names stand for. Fields of other enums are left as they are.
 */
export function answerEnumsByName(schema: GraphQLSchema): void {
  const standIns = new Map<GraphQLEnumType, Map<unknown, string>>();
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isEnumType(type)) continue;
    const names = new Map(
      type
        .getValues()
        .filter((value) => value.value !== value.name)
        .map((value) => [value.value, value.name]),
    );
    if (names.size === 0) continue;
    standIns.set(type, names);
    const own = new Set(type.getValues().map((value) => value.name));
    const serialize = type.serialize.bind(type);
    type.serialize = (value: unknown) => (typeof value === 'string' && own.has(value) ? value : serialize(value));
  }
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields())) {
      const named = getNamedType(field.type);
      const names = isEnumType(named) ? standIns.get(named) : undefined;
      if (!names) continue;
      const resolve = field.resolve ?? defaultFieldResolver;
      const rename = (value: unknown): unknown =>
        Array.isArray(value) ? value.map(rename) : (names.get(value) ?? value);
      field.resolve = (source, args, context, info) => {
        const value = resolve(source, args, context, info);
        return isPromise(value) ? value.then(rename) : rename(value);
      };
    }
  }
}
