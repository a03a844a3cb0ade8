import { Type } from '@sinclair/typebox';
import {
  OrganizationUserListDocument,
  TeamGetDocument,
  TeamListDocument,
  UserGetDocument,
  UserListDocument,
  WhoamiDocument,
  type TeamGetQuery,
  type UserGetQuery,
} from '../../kernel/graphql/__generated__/operations';
import { found, restRow, type RestRow } from '../../kernel/rest/engine';
import { foundOrganization } from '../../kernel/rest/mapping';
import { DetailBody, Query, Uuid, withErrors } from '../../kernel/rest/schemas';
import { MAX_PAGE_SIZE, DEFAULT_PAGE_SIZE } from '../../kernel/graphql/pagination';


type UserResult = UserGetQuery['user'] & {};
type TeamResult = TeamGetQuery['team'] & {};

const UserBody = Type.Object({
  id: Type.String(),
  email: Type.String(),
  first_name: Type.Union([Type.String(), Type.Null()]),
  last_name: Type.Union([Type.String(), Type.Null()]),
  role: Type.String(),
  organization_id: Type.String(),
  team_id: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String(),
});

const TeamBody = Type.Object({
  id: Type.String(),
  name: Type.String(),
  organization_id: Type.String(),
  member_ids: Type.Array(Type.String()),
  created_at: Type.String(),
});

export const restUser = (user: UserResult) => ({
  id: user.id,
  email: user.email,
  first_name: user.firstName,
  last_name: user.lastName,
  role: user.role,
  organization_id: user.organization.id,
  team_id: user.team?.id ?? null,
  created_at: user.createdAt,
});

const restTeam = (team: TeamResult) => ({
  id: team.id,
  name: team.name,
  organization_id: team.organization.id,
  member_ids: team.members.map((m) => m.id),
  created_at: team.createdAt,
});

// GET /whoami answers "an object with string properties": absent values are left out, not null.
const stringsOnly = (record: Record<string, string | null | undefined>) =>
  Object.fromEntries(Object.entries(record).filter(([, value]) => typeof value === 'string'));

const UsersQuery = Query({
  limit: Type.Integer({ minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE, description: `page size, 1 to ${MAX_PAGE_SIZE}; oldest first` }),
});

const tags = ['Users'];

export const identityRestRows: RestRow[] = [
  restRow({
    method: 'GET',
    url: '/whoami',
    summary: 'Describe the authenticated user',
    tags,
    schema: { response: { 200: Type.Record(Type.String(), Type.String()) } },
    operation: WhoamiDocument,
    variables: () => ({}),
    result: ({ viewer }) => ({
      body: stringsOnly({
        ...restUser(viewer),
        organization_name: viewer.organization.name,
        team_name: viewer.team?.name,
      }),
    }),
  }),
  restRow({
    method: 'GET',
    url: '/users',
    summary: 'List the users of the organization',
    tags,
    schema: { querystring: UsersQuery, response: withErrors({ 200: Type.Array(UserBody) }, [422]) },
    operation: UserListDocument,
    variables: ({ query }) => ({ first: query.limit }),
    result: (data) => ({ body: data.organization.users.nodes.map(restUser) }),
  }),
  restRow({
    method: 'GET',
    url: '/users/:user_id',
    summary: 'Get a user',
    tags,
    schema: { params: Type.Object({ user_id: Uuid() }), response: withErrors({ 200: UserBody }) },
    operation: UserGetDocument,
    variables: ({ params }) => ({ id: params.user_id }),
    result: (data) => ({ body: restUser(found(data.user, 'User')) }),
  }),
  restRow({
    method: 'GET',
    url: '/organizations/:org_id/users',
    summary: 'List the users of an organization',
    tags,
    schema: { params: Type.Object({ org_id: Uuid() }), querystring: UsersQuery, response: withErrors({ 200: Type.Array(UserBody) }) },
    operation: OrganizationUserListDocument,
    variables: ({ params, query }) => ({ organizationId: params.org_id, first: query.limit }),
    result: (data) => {
      return { body: foundOrganization(data.node, 'users').users.nodes.map(restUser) };
    },
  }),
  restRow({
    method: 'GET',
    url: '/teams',
    summary: 'List the teams of the organization',
    tags: ['Teams'],
    schema: { response: { 200: Type.Array(TeamBody) } },
    operation: TeamListDocument,
    variables: () => ({}),
    result: (data) => ({ body: data.organization.teams.map(restTeam) }),
  }),
  restRow({
    method: 'GET',
    url: '/teams/:team_id',
    summary: 'Get a team',
    tags: ['Teams'],
    schema: { params: Type.Object({ team_id: Uuid() }), response: withErrors({ 200: TeamBody, 404: DetailBody }) },
    operation: TeamGetDocument,
    variables: ({ params }) => ({ id: params.team_id }),
    result: (data) => ({ body: restTeam(found(data.team, 'Team')) }),
  }),
];
