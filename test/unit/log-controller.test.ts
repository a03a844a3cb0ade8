import { Type } from '@sinclair/typebox';
import Fastify from 'fastify';
import { ServiceLogController } from '../../src/kernel/http/observe';
import { createLogger } from '../../src/kernel/logger';

describe('ServiceLogController', () => {
  it("should log an answer its schema cannot serialize, with the route and status, though requests' lines are off", async () => {
    const lines: string[] = [];
    const app = Fastify({
      loggerInstance: createLogger('info', { write: (line: string) => void lines.push(line) }),
      logController: new ServiceLogController(),
    });
    // Fastify's own error body ({statusCode, error, message}) does not fit the 500 this route declares.
    app.get('/broken', { schema: { response: { 500: Type.Object({ detail: Type.String() }) } } }, async () => {
      throw new Error('boom');
    });
    try {
      expect((await app.inject({ method: 'GET', url: '/broken' })).statusCode).toBe(500);
      expect((await app.inject({ method: 'GET', url: '/nowhere' })).statusCode).toBe(404);
    } finally {
      await app.close();
    }
    const logged = lines.map((line) => JSON.parse(line));
    expect(logged).toEqual([
      expect.objectContaining({
        level: 50,
        msg: 'an answer does not fit its schema',
        route: '/broken',
        status: 500,
        err: expect.objectContaining({ message: expect.stringContaining('detail') }),
      }),
    ]);
  });
});
