import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { createdAt, timestamps, uuidPrimaryKey } from '../../kernel/db/entity-props';
import type { Row } from '../../kernel/db/db';

export const USER_ROLES = ['ADMIN', 'USER'] as const;
export type UserRole = (typeof USER_ROLES)[number];

export const Organization = defineEntity({
  name: 'Organization',
  tableName: 'organization',
  properties: {
    id: uuidPrimaryKey(),
    name: p.string().length(200),
    ...timestamps(),
  },
});
export type Organization = InferEntity<typeof Organization>;
/** A Organization as read paths return it (see `Row`). */
export type OrganizationRow = Row<Organization>;

export const Team = defineEntity({
  name: 'Team',
  tableName: 'team',
  properties: {
    id: uuidPrimaryKey(),
    organization: () => p.manyToOne(Organization).ref(),
    name: p.string().length(200),
    ...timestamps(),
  },
});
export type Team = InferEntity<typeof Team>;
/** A Team as read paths return it (see `Row`). */
export type TeamRow = Row<Team>;

export const User = defineEntity({
  name: 'User',
  tableName: 'app_user',
  properties: {
    id: uuidPrimaryKey(),
    organization: () => p.manyToOne(Organization).ref(),
    team: () => p.manyToOne(Team).ref().nullable(),
    email: p.string().length(320),
    firstName: p.string().length(100).nullable(),
    lastName: p.string().length(100).nullable(),
    role: p.enum([...USER_ROLES]),
    ...timestamps(),
  },
});
export type User = InferEntity<typeof User>;
/** A User as read paths return it (see `Row`). */
export type UserRow = Row<User>;

export const ApiKey = defineEntity({
  name: 'ApiKey',
  tableName: 'api_key',
  properties: {
    id: uuidPrimaryKey(),
    organization: () => p.manyToOne(Organization).ref(),
    user: () => p.manyToOne(User).ref(),
    name: p.string().length(100).nullable(),
    prefix: p.string().length(16),
    keyHash: p.string().length(64).columnType('char(64)'),
    createdAt: createdAt(),
    revokedAt: p.datetime().nullable(),
  },
});
export type ApiKey = InferEntity<typeof ApiKey>;
/** A ApiKey as read paths return it (see `Row`). */
export type ApiKeyRow = Row<ApiKey>;
