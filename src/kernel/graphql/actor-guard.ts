import { defaultFieldResolver, type GraphQLSchema } from 'graphql';
import { AppError } from '../errors/app-error';
import type { Actor, GraphQLContext } from './context';

/** The directive that marks a root field as a recipient's (`@recipientSession`): schema/base.graphql. */
const RECIPIENT_DIRECTIVE = 'recipientSession';

const ROOTS = ['Query', 'Mutation', 'Subscription'] as const;

const forbidden = (actor: Actor) =>
  actor.type === 'RECIPIENT'
    ? AppError.forbidden(
        'A recipient session may call only the recipient operations (recipientRequest, recipient… mutations)',
      )
    : AppError.forbidden('Only a recipient session may call this operation; an API key may not');

/**
 * Root fields marked `@recipientSession` answer only a recipient's session, every other root field
 * only a user's API key (or the service itself): each kind of caller reaches only its own operations,
 * whatever the document asks for. Checked on the root field, so nested fields need no check.
 */
export function guardActors(schema: GraphQLSchema): void {
  for (const root of ROOTS) {
    const type =
      root === 'Query'
        ? schema.getQueryType()
        : root === 'Mutation'
          ? schema.getMutationType()
          : schema.getSubscriptionType();
    for (const field of Object.values(type?.getFields() ?? {})) {
      const forRecipient = field.astNode?.directives?.some((d) => d.name.value === RECIPIENT_DIRECTIVE) ?? false;
      const allowed = (ctx: GraphQLContext) => (ctx.viewer.actor.type === 'RECIPIENT') === forRecipient;
      const wrap = <F extends (...args: any[]) => unknown>(inner: F): F =>
        ((source: unknown, args: unknown, ctx: GraphQLContext, info: unknown) => {
          if (!allowed(ctx)) throw forbidden(ctx.viewer.actor);
          return inner(source, args, ctx, info);
        }) as F;
      field.resolve = wrap(field.resolve ?? defaultFieldResolver);
      if (field.subscribe) field.subscribe = wrap(field.subscribe);
    }
  }
}
