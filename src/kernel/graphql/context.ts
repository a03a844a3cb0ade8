import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { FastifyBaseLogger, FastifyRequest } from 'fastify';
import type { Loaders } from '../../modules/loaders';
import type { Viewer } from '../../modules/identity/viewer';
import { AppError } from '../errors/app-error';
import type { Storage } from '../storage';

/** What services need from the deployment, beyond the database. */
export type ServiceSettings = {
  /** Base of the links handed to recipients. */
  publicUrl: string;
  /** Server secret from which recipient links and passwords are derived. */
  secret: string;
  /** Largest file upload, in bytes. */
  maxUploadBytes: number;
  /** Attachments, and separately documents, one item or request may hold. */
  maxFilesPerItem: number;
};

/**
 * Everything one operation works with. The same builder serves HTTP GraphQL, REST rows and
 * WebSocket subscriptions, so all three see the same rules.
 */
export type GraphQLContext = {
  /** A fork of the entity manager for this operation alone. */
  em: EntityManager;
  viewer: Viewer;
  loaders: Loaders;
  settings: ServiceSettings;
  /** Where file bytes live. */
  storage: Storage;
  log: FastifyBaseLogger;
  /** Fastify's request id, quoted in masked errors so a log line can be found. */
  requestId: string;
};

export type ContextBuilderOptions = {
  orm: MikroORM;
  settings: ServiceSettings;
  storage: Storage;
  createLoaders: (em: EntityManager) => Loaders;
};

export function createContextBuilder(options: ContextBuilderOptions) {
  return (request: FastifyRequest): GraphQLContext => {
    const viewer = request.viewer;
    if (!viewer) throw new AppError('UNAUTHENTICATED', 'Not authenticated');
    const em = options.orm.em.fork();
    return { em, viewer, loaders: options.createLoaders(em), settings: options.settings, storage: options.storage, log: request.log, requestId: request.id };
  };
}
