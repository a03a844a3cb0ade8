import type { RequestSearchPart } from '../requests/request.search';

/** A request's search (`requests(filter: {search})`) also matches its recipients' names, emails and phones. */
export const recipientSearch: RequestSearchPart = {
  sql: (alias) =>
    `exists (select 1 from recipient p where p.request_id = ${alias}.id and (
      concat_ws(' ', p.first_name, p.last_name) ilike ? or p.email ilike ? or p.phone ilike ?))`,
};
