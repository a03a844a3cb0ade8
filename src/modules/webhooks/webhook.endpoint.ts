import { lookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';
import type { FieldPath, InputCheck } from '../../kernel/validation/input-check';
import { MAX_ENDPOINT_LENGTH } from './webhook.limits';

/** Resolves a host name to its addresses (injected in tests to play DNS tricks). */
export type HostResolver = (hostname: string) => Promise<string[]>;

export const systemResolver: HostResolver = async (hostname) =>
  (await lookup(hostname, { all: true })).map((a) => a.address);

/** Only globally routable unicast addresses receive webhooks unless private targets are allowed. */
export function isPublicAddress(address: string): boolean {
  try {
    const parsed = ipaddr.process(address);
    return parsed.range() === 'unicast';
  } catch {
    return false;
  }
}

/**
 * Checks an endpoint when it is saved (API-DECISIONS, Webhooks): https, no credentials, and a host that
 * resolves to public addresses only, unless the deployment allows private targets (then plain http
 * too). Delivery checks the address again when it connects, which defeats DNS rebinding.
 */
export async function checkEndpoint(
  check: InputCheck,
  field: FieldPath,
  endpoint: string,
  options: { allowPrivate: boolean; resolve: HostResolver },
): Promise<void> {
  check.text(field, endpoint, { max: MAX_ENDPOINT_LENGTH, min: 1 });
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    check.add(field, 'Input should be an absolute URL', 'INVALID');
    return;
  }
  const schemes = options.allowPrivate ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(url.protocol)) {
    check.add(
      field,
      options.allowPrivate ? 'Input should be an http or https URL' : 'Input should be an https URL',
      'INVALID',
    );
    return;
  }
  if (url.username || url.password) {
    check.add(field, 'The URL must not carry credentials; authenticate deliveries with their signature', 'INVALID');
    return;
  }
  if (options.allowPrivate) return;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  if (ipaddr.isValid(host)) addresses = [host];
  else {
    try {
      addresses = await options.resolve(host);
    } catch {
      check.add(field, `The host ${host} does not resolve`, 'INVALID');
      return;
    }
  }
  if (addresses.length === 0 || !addresses.every(isPublicAddress)) {
    check.add(field, `The host ${host} resolves to a private, loopback or link-local address`, 'INVALID');
  }
}
