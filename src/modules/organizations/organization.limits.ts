/** The largest logo accepted (bytes): it is sent in every mail and every portal page. */
export const MAX_LOGO_BYTES = 256 * 1024;

/** The longest sender name (it becomes the display name of every mail's From). */
export const MAX_SENDER_NAME_LENGTH = 100;

/** The longest confirmation-page message. */
export const MAX_CONFIRMATION_MESSAGE_LENGTH = 2000;

/** The most days `default_expiration_days` and `retention_days` may name (ten years). */
export const MAX_SETTINGS_DAYS = 3650;

/** How long browsers and proxies may keep a logo: its URL changes with its content. */
export const LOGO_CACHE_SECONDS = 365 * 86_400;
