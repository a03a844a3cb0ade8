// Limits of organizations, teams and API keys (docs/operations.md, Limits); users' names and emails are kernel-wide.

/** Characters of an organization's name (at least one that is not blank). */
export const MAX_ORGANIZATION_NAME = 200;
/** Characters of a team's name (at least one that is not blank). */
export const MAX_TEAM_NAME = 200;
/** Characters of an API key's label. */
export const MAX_API_KEY_NAME = 100;
