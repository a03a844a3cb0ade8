import { Type } from '@sinclair/typebox';
import type { TeamGetQuery, UserGetQuery } from '../../generated/operations';
import { restShape, type Field } from '../../kernel/rest/shape';

// The REST shapes of users and teams.

export const { schema: UserBody, map: restUser } = restShape((field: Field<NonNullable<UserGetQuery['user']>>) => ({
  id: Type.String(),
  email: Type.String(),
  first_name: Type.Union([Type.String(), Type.Null()]),
  last_name: Type.Union([Type.String(), Type.Null()]),
  role: Type.String(),
  organization_id: field(Type.String(), (user) => user.organization.id),
  team_id: field(Type.Union([Type.String(), Type.Null()]), (user) => user.team?.id ?? null),
  created_at: Type.String(),
}));

export const { schema: TeamBody, map: restTeam } = restShape((field: Field<NonNullable<TeamGetQuery['team']>>) => ({
  id: Type.String(),
  name: Type.String(),
  organization_id: field(Type.String(), (team) => team.organization.id),
  member_ids: field(Type.Array(Type.String()), (team) => team.members.map((m) => m.id)),
  created_at: Type.String(),
}));
