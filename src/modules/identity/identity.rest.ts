import { join } from 'node:path';
import { Type } from '@sinclair/typebox';
import type {
  OrganizationUserListQuery,
  TeamGetQuery,
  TeamListQuery,
  UserGetQuery,
  UserListQuery,
  WhoamiQuery,
} from '../../kernel/graphql/__generated__/operations';
import { found, type RestRow } from '../../kernel/rest/engine';
import { foundOrganization } from '../../kernel/rest/mapping';
import { loadOperations } from '../../kernel/rest/operations';
import { DetailBody, Query, Uuid, withErrors } from '../../kernel/rest/schemas';
import { MAX_PAGE_SIZE, DEFAULT_PAGE_SIZE } from '../../kernel/limits';
import { restTeam, restUser, TeamBody, UserBody } from './identity.rest-shapes';

const operations = loadOperations(join(__dirname, 'identity.operations.graphql'));

// GET /whoami answers "an object with string properties": absent values are left out, not null.
const stringsOnly = (record: Record<string, string | null | undefined>) =>
  Object.fromEntries(Object.entries(record).filter(([, value]) => typeof value === 'string'));

const UsersQuery = Query({
  limit: Type.Integer({ minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE, description: `page size, 1 to ${MAX_PAGE_SIZE}; oldest first` }),
});

const tags = ['Users'];

export const identityRestRows: RestRow[] = [
  {
    method: 'GET',
    url: '/whoami',
    summary: 'Describe the authenticated user',
    tags,
    schema: { response: { 200: Type.Record(Type.String(), Type.String()) } },
    operation: operations.Whoami,
    variables: () => ({}),
    result: ({ viewer }: WhoamiQuery) => ({
      body: stringsOnly({
        ...restUser(viewer),
        organization_name: viewer.organization.name,
        team_name: viewer.team?.name,
      }),
    }),
  },
  {
    method: 'GET',
    url: '/users',
    summary: 'List the users of the organization',
    tags,
    schema: { querystring: UsersQuery, response: withErrors({ 200: Type.Array(UserBody) }, [422]) },
    operation: operations.UserList,
    variables: ({ query }) => ({ first: query.limit }),
    result: (data: UserListQuery) => ({ body: data.organization.users.nodes.map(restUser) }),
  },
  {
    method: 'GET',
    url: '/users/:user_id',
    summary: 'Get a user',
    tags,
    schema: { params: Type.Object({ user_id: Uuid() }), response: withErrors({ 200: UserBody }) },
    operation: operations.UserGet,
    variables: ({ params }) => ({ id: params.user_id }),
    result: (data: UserGetQuery) => ({ body: restUser(found(data.user, 'User')) }),
  },
  {
    method: 'GET',
    url: '/organizations/:org_id/users',
    summary: 'List the users of an organization',
    tags,
    schema: { params: Type.Object({ org_id: Uuid() }), querystring: UsersQuery, response: withErrors({ 200: Type.Array(UserBody) }) },
    operation: operations.OrganizationUserList,
    variables: ({ params, query }) => ({ organizationId: params.org_id, first: query.limit }),
    result: (data: OrganizationUserListQuery) => {
      return { body: foundOrganization(data.node, 'users').users.nodes.map(restUser) };
    },
  },
  {
    method: 'GET',
    url: '/teams',
    summary: 'List the teams of the organization',
    tags: ['Teams'],
    schema: { response: { 200: Type.Array(TeamBody) } },
    operation: operations.TeamList,
    variables: () => ({}),
    result: (data: TeamListQuery) => ({ body: data.organization.teams.map(restTeam) }),
  },
  {
    method: 'GET',
    url: '/teams/:team_id',
    summary: 'Get a team',
    tags: ['Teams'],
    schema: { params: Type.Object({ team_id: Uuid() }), response: withErrors({ 200: TeamBody, 404: DetailBody }) },
    operation: operations.TeamGet,
    variables: ({ params }) => ({ id: params.team_id }),
    result: (data: TeamGetQuery) => ({ body: restTeam(found(data.team, 'Team')) }),
  },
];
