import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ValidationEntry } from '../rest/validation';

/** A refusal of the HTTP layer, before any route ran: in GraphQL's terms and in REST's. */
export type Refusal = {
  status: number;
  message: string;
  /** GraphQL `extensions` (with its `code`). */
  extensions: Record<string, unknown> & { code: string };
  /** REST's `detail`, when it says more than `message` (a 422's entries). */
  detail?: ValidationEntry[];
};

export const isGraphQLRequest = (request: FastifyRequest): boolean =>
  request.url === '/graphql' || request.url.startsWith('/graphql?');

/** Answers a refusal in the shape the caller's endpoint speaks: a GraphQL error, or a REST `detail`. */
export function replyRefusal(request: FastifyRequest, reply: FastifyReply, refusal: Refusal): FastifyReply {
  reply.code(refusal.status);
  return isGraphQLRequest(request)
    ? reply.send({ data: null, errors: [{ message: refusal.message, extensions: refusal.extensions }] })
    : reply.send({ detail: refusal.detail ?? refusal.message });
}
