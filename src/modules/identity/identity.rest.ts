import { Type } from '@sinclair/typebox';
import {
  OrganizationUserListDocument,
  TeamGetDocument,
  TeamListDocument,
  UserGetDocument,
  UserListDocument,
  WhoamiDocument,
} from '../../generated/operations';
import { found, restRow, type RestRow } from '../../kernel/rest/engine';
import { foundOrganization } from '../../kernel/rest/mapping';
import { DetailBody, Query, Uuid, withErrors } from '../../kernel/rest/schemas';
import { MAX_PAGE_SIZE, DEFAULT_PAGE_SIZE } from '../../kernel/limits';
import { restTeam, restUser, TeamBody, UserBody } from './identity.rest-shapes';

// GET /whoami answers "an object with string properties": absent values are left out, not null.
const stringsOnly = (record: Record<string, string | null | undefined>) =>
  Object.fromEntries(Object.entries(record).filter(([, value]) => typeof value === 'string'));

const UsersQuery = Query({
  limit: Type.Integer({
    minimum: 1,
    maximum: MAX_PAGE_SIZE,
    default: DEFAULT_PAGE_SIZE,
    description: `page size, 1 to ${MAX_PAGE_SIZE}; oldest first`,
  }),
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
    schema: {
      params: Type.Object({ org_id: Uuid() }),
      querystring: UsersQuery,
      response: withErrors({ 200: Type.Array(UserBody) }),
    },
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
