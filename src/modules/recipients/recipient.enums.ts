// Closed sets of the interface spec (section 2) for recipients. GraphQL enums mirror them one to one.

export const AUTH_METHODS = ['UNSET', 'EMAIL', 'SMS', 'SECURITY_QUESTION', 'NONE'] as const;
export type AuthMethod = (typeof AUTH_METHODS)[number];

export const SEND_METHODS = ['DEFAULT', 'EMAIL', 'SMS', 'BOTH', 'MULTIPLE'] as const;
export type SendMethod = (typeof SEND_METHODS)[number];
