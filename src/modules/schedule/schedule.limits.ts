// Limits of timed work (docs/operations.md, Limits).

/** When a job that failed is tried again, after its first, second... failure; then it is FAILED. */
export const JOB_RETRY_DELAYS_MS = [60_000, 300_000, 1_800_000, 7_200_000];
export const JOB_MAX_ATTEMPTS = JOB_RETRY_DELAYS_MS.length + 1;
/** A recipient active in the portal this recently is reminded this much later. */
export const REMINDER_DEFER_MS = 86_400_000;
/** A recipient reminded this recently gets no periodic, scheduled or deferred reminder (one by hand still goes). */
export const REMINDER_MIN_GAP_MS = 3_600_000;
/** Scheduled reminders of one request (through `…/scheduled-reminders`; `reminder_schedule` has its own). */
export const MAX_SCHEDULED_REMINDERS = 20;
/** Escalation rules of one request. */
export const MAX_ESCALATIONS = 20;
/** Days an escalation waits (`after_days`). */
export const MIN_ESCALATION_DAYS = 1;
export const MAX_ESCALATION_DAYS = 365;
