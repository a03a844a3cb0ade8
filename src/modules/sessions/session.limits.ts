// Limits of a user's sign-in by e-mail link and of the sessions it opens (docs/operations.md, Limits).

/** How long a sign-in link works, in minutes; it works once. */
export const SIGN_IN_LINK_MINUTES = 15;
/** Sign-in links asked for one e-mail address in a window, whether or not it is a user's. */
export const SIGN_IN_LINKS_PER_EMAIL = 5;
/** Sign-in calls (links asked for, links used) from one client address in a window. */
export const SIGN_IN_ATTEMPTS_PER_ADDRESS = 30;
/** The window of both, in minutes. */
export const SIGN_IN_WINDOW_MINUTES = 15;
/** A session ends after this many hours without a call. */
export const SESSION_IDLE_HOURS = 12;
/** A session ends this many days after its sign-in, however often it is used. */
export const SESSION_MAX_DAYS = 30;
/** How often a session's use moves its idle end at most, in seconds: one write per window, not per call. */
export const SESSION_TOUCH_SECONDS = 60;
