// Closed sets of the interface spec (section 2) for items. GraphQL enums mirror them one to one.

export const ITEM_TYPES = ['UPLOAD', 'E_SIGNATURE', 'QUESTION'] as const;
export type ItemType = (typeof ITEM_TYPES)[number];

export const ITEM_STATUSES = ['INCOMPLETE', 'COMPLETE', 'REJECTED', 'VERIFIED'] as const;
export type ItemStatus = (typeof ITEM_STATUSES)[number];

export const QUESTION_TYPES = ['TEXT'] as const;
export type QuestionType = (typeof QUESTION_TYPES)[number];
