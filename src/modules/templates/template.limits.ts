// Limits of templates (docs/operations.md, Limits); their items share the items' text limits, their personal
// message and reminders the requests' limits.

/** Characters of a template's name (at least one that is not blank). */
export const MAX_TEMPLATE_NAME = 255;
/** Characters of a template's default title. */
export const MAX_DEFAULT_TITLE = 255;
/** Items of one template. */
export const MAX_TEMPLATE_ITEMS = 100;
/** Most days from a request's creation to its due date a template may set (at least 0). */
export const MAX_DUE_DATE_INTERVAL = 3650;
