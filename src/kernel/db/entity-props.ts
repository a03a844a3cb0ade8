import { randomUUID } from 'node:crypto';
import { p } from '@mikro-orm/postgresql';

/** A UUID primary key generated in the application, so a new row's id is known before the flush. */
export const uuidPrimaryKey = () =>
  p
    .uuid()
    .primary()
    .onCreate(() => randomUUID());

export const createdAt = () => p.datetime().onCreate(() => new Date());

export const timestamps = () => ({
  createdAt: createdAt(),
  updatedAt: p
    .datetime()
    .onCreate(() => new Date())
    .onUpdate(() => new Date()),
});
