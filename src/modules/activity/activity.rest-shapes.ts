import { Type } from '@sinclair/typebox';
import type { RestActivityFragment } from '../../generated/operations';
import { Nullable, StringEnum } from '../../kernel/rest/schemas';
import { restShape, type Field } from '../../kernel/rest/shape';
import { ACTOR_TYPES } from './activity.entities';

// API-DECISIONS, "Bodies of the named operations": {id, action, actor: {type, id, name}, created_at,
// details}; the actor also carries a recipient's address and user agent.

const Actor = restShape((field: Field<RestActivityFragment['actor']>) => ({
  type: StringEnum(ACTOR_TYPES),
  id: Nullable(Type.String()),
  name: Nullable(Type.String()),
  ip: Nullable(Type.String()),
  user_agent: field(Nullable(Type.String()), (actor) => actor.userAgent),
}));

export const { schema: ActivityBody, map: restActivity } = restShape((field: Field<RestActivityFragment>) => ({
  id: Type.String(),
  action: Type.String(),
  actor: field(Actor.schema, (entry) => Actor.map(entry.actor)),
  created_at: Type.String(),
  details: field(Type.Record(Type.String(), Type.Unknown()), (entry) => entry.details as Record<string, unknown>),
}));
