import { Kind, type FieldNode, type GraphQLResolveInfo } from 'graphql';
import type DataLoader from 'dataloader';
import { loadRef, type Ref } from '../db/loaders';

const idOnly = new WeakMap<FieldNode, boolean>();

/** Whether the field asks for nothing of its object but `id` (and `__typename`). */
export function selectsOnlyId(info: Pick<GraphQLResolveInfo, 'fieldNodes'>): boolean {
  const key = info.fieldNodes[0];
  let only = idOnly.get(key);
  if (only === undefined) {
    only = info.fieldNodes.every(
      (node) => node.selectionSet?.selections.every((s) => s.kind === Kind.FIELD && !s.selectionSet && (s.name.value === 'id' || s.name.value === '__typename')) ?? false,
    );
    idOnly.set(key, only);
  }
  return only;
}

/**
 * The record behind a reference, or only its id when that is all the query selects (`owner { id }`,
 * as every REST shape asks): the foreign key says the record exists, so reading it would add a
 * statement (an event's render, each REST answer) for what the reference already holds.
 */
export async function loadRefSelected<T>(ref: Ref<T>, loader: DataLoader<string, T | null>, info: Pick<GraphQLResolveInfo, 'fieldNodes'>): Promise<T | null> {
  // Nothing but `id` is read from it.
  return selectsOnlyId(info) ? ({ id: ref.id } as T) : loadRef(ref, loader);
}
