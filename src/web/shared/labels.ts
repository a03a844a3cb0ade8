// What the owner's pages (the dashboard, the console) call the spec's states and people, in one place.

/** Each request state as the owner reads it. */
export const STATE_LABELS: Record<string, string> = {
  PRE_LINK_GENERATED: 'Draft',
  INCOMPLETE_AND_FRESHLY_GENERATED: 'New',
  INCOMPLETE_AND_LINK_GENERATED: 'Link ready',
  INCOMPLETE_AND_LINK_SENT: 'Sent',
  PARTIALLY_SUBMITTED: 'In progress',
  REJECTED: 'Sent back',
  SUBMITTED: 'Submitted',
  UPDATED_AND_SUBMITTED: 'Resubmitted',
  EXPIRATION_EMAIL_SENT: 'Expiring',
  COMPLETE_AND_SUBMITTED: 'Complete',
  VERIFIED: 'Verified',
  EXPIRED: 'Expired',
  CLOSED: 'Closed',
};

type Person = { firstName?: string | null; lastName?: string | null; email?: string | null; phone?: string | null };

/** A person's name, else how to reach them. */
export const personName = (person: Person, fallback = 'Recipient'): string =>
  [person.firstName, person.lastName].filter(Boolean).join(' ') || person.email || person.phone || fallback;
