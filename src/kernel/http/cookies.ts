import type { IncomingHttpHeaders } from 'node:http';

// The session cookies: a user's (the owner's console, Path=/) and a recipient's (a portal or share
// link, Path=/r/{token} or /s/{token}) share one name, so a browser holding both sends both to a
// link's paths, the longer path first. Each kind of session token carries its own prefix (`gus_`,
// `grs_`, `gss_`): a reader takes the value of its own kind, never merely the first.

/** The name of every session cookie Gather sets. */
export const SESSION_COOKIE = 'gather_session';

/** The prefix of a signed-in user's session token: the cookie every API takes as it takes an API key. */
export const USER_SESSION_PREFIX = 'gus_';

/** The first value of cookie `name` in a request's headers (that starts with `prefix`, when given). */
export function readCookie(headers: IncomingHttpHeaders, name: string, prefix = ''): string | undefined {
  for (const part of (headers.cookie ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key !== name) continue;
    let decoded: string;
    try {
      decoded = decodeURIComponent(value.join('='));
    } catch {
      continue;
    }
    if (decoded.startsWith(prefix)) return decoded;
  }
  return undefined;
}

/**
 * A session cookie's `Set-Cookie` value: never readable by scripts, never sent by another site's page
 * (SameSite=Strict), over HTTPS only when `secure`. A `maxAge` of 0 removes it.
 */
export function sessionCookie(
  value: string,
  options: { path: string; maxAgeSeconds: number; secure: boolean },
): string {
  const maxAge = Math.max(0, Math.floor(options.maxAgeSeconds));
  return `${SESSION_COOKIE}=${value}; Path=${options.path}; Max-Age=${maxAge}; HttpOnly; SameSite=Strict${options.secure ? '; Secure' : ''}`;
}
