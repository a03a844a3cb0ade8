import type { FastifyInstance, FastifyRequest } from 'fastify';

// The pages and the tus endpoint act through the recipient API itself (in-process), as the recipient
// whose request they serve: its cookie or bearer session, address and user agent travel along, so the
// API's checks, limits and records apply to them exactly as to any other client.

export type ApiAnswer = { status: number; body: string; json<T>(): T; setCookie: string | string[] | undefined };

export async function callRecipientApi(
  scope: FastifyInstance,
  request: FastifyRequest,
  call: { method: 'GET' | 'POST'; path: string; payload?: unknown; headers?: Record<string, string> },
): Promise<ApiAnswer> {
  const headers: Record<string, string> = { 'user-agent': request.headers['user-agent'] ?? '', ...call.headers };
  for (const name of ['cookie', 'authorization', 'accept-language'] as const) {
    const value = request.headers[name];
    if (value) headers[name] = String(value);
  }
  const response = await scope.inject({
    method: call.method,
    url: call.path,
    headers,
    payload: call.payload as never,
    remoteAddress: request.ip,
  });
  return {
    status: response.statusCode,
    body: response.body,
    json: <T>() => response.json() as T,
    setCookie: response.headers['set-cookie'],
  };
}

export const apiBase = (token: string) => `/r/${encodeURIComponent(token)}/api`;
