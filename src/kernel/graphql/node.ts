import type { IResolvers } from '@graphql-tools/utils';
import { entityOf } from '../db/db';
import { isUuid } from '../validation/input-check';
import type { GraphQLContext } from './context';

/** A kind of record `node(id:)` may answer with, keyed by its entity's name. */
export type NodeKind = {
  /**
   * A statement selecting a row when the id names a record of this kind in the caller's organization,
   * with two `?` placeholders: the id, then the organization's id. The module's own lookup (`load`)
   * then applies its visibility rules.
   */
  sql: string;
  /** The record, as the caller may see it; null when it may not. */
  load: (ctx: GraphQLContext, id: string) => Promise<object | null>;
  /** The GraphQL type of a record when it is not the entity's name (an item's kind). */
  typeName?: (record: any) => string;
};

/** The entity name of a record, as its read named it. */
const entityName = (record: object): string => {
  const name = entityOf(record);
  if (!name) throw new Error('a record without its entity: read it with db.records');
  return name;
};

/** `Query.node` and `Node.__resolveType` over the node kinds of every module. */
export function nodeResolvers(kinds: Record<string, NodeKind>): IResolvers<any, GraphQLContext> {
  const names = Object.keys(kinds);
  // One statement finds which table holds the id, whatever the number of kinds.
  const sql = `${names.map((name, index) => `${index ? 'union all ' : ''}select '${name}' as kind from (${kinds[name].sql}) as k${index}`).join('\n')}\nlimit 1`;
  return {
    Query: {
      node: async (_root: unknown, { id }: { id: string }, ctx: GraphQLContext) => {
        if (!isUuid(id)) return null;
        const rows = await ctx.db.rows<{ kind: string }>(
          sql,
          names.flatMap(() => [id, ctx.viewer.organizationId]),
        );
        const kind = rows[0] && kinds[rows[0].kind];
        return kind ? kind.load(ctx, id) : null;
      },
    },
    Node: {
      __resolveType: (record: object) => {
        const name = entityName(record);
        return kinds[name]?.typeName?.(record) ?? name;
      },
    },
  };
}
