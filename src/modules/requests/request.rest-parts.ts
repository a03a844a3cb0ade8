import type { Static, TArray, TObject } from '@sinclair/typebox';
import type { RequestCreateInput, RequestUpdateInput, RestRequestFragment } from '../../generated/operations';
import { extensionPoint } from '../../kernel/module';
import type { Computed, Field } from '../../kernel/rest/shape';

/**
 * What a module adds to the REST form of a request (its recipients, items, attachments): keys of the
 * create body and of the response. Requests ask through this point, so that they import none of the
 * modules above them; where each key goes among the request's own is theirs (request.rest-shapes.ts).
 */
export type RequestRestPart<B extends TObject = TObject> = {
  /** Its keys of `POST /requests`'s body, as a `Body`: those it requires, the request's body requires. */
  createBody: B;
  /** The fields of the GraphQL input its keys give. */
  input(body: Static<B>): Partial<RequestCreateInput>;
  /** Its keys `PATCH /requests/{id}` takes too, with the fields of the GraphQL input they give (only those sent). */
  update?: { body: TObject; input(body: Record<string, unknown>): Partial<RequestUpdateInput> };
  /** Its keys of the request as REST answers it: lists of its records, as `restShape` fields. */
  response(field: Field<RestRequestFragment>): Record<string, Computed<RestRequestFragment, TArray>>;
};

export const requestRestParts = extensionPoint<RequestRestPart>('request REST body');
