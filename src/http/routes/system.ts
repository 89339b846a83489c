/**
 * Liveness and the machine contract (spec: GET /health; GET /v1/openapi.json and /public/openapi.json,
 * "keyless to read", rendered live from the route schemas).
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { Type } from 'typebox';

export function systemRoutes() {
  return async (app: FastifyInstance) => {
    app.get(
      '/health',
      {
        schema: {
          operationId: 'health',
          tags: ['system'],
          summary: 'Liveness: the process answers',
          response: { 200: Type.Object({ status: Type.Literal('ok') }) },
        },
      },
      async () => ({ status: 'ok' as const }),
    );

    for (const prefix of ['/v1', '/public']) {
      // The /public copies are cached by the keyless table (plugins/keyless-access.ts).
      const cache = (reply: FastifyReply) => (prefix === '/v1' ? reply.header('Cache-Control', 'no-cache') : reply);
      app.get(`${prefix}/openapi.json`, { schema: { hide: true } }, async (_request, reply) => {
        cache(reply).type('application/json; charset=utf-8');
        return JSON.stringify(app.swagger());
      });
      app.get(`${prefix}/openapi.yaml`, { schema: { hide: true } }, async (_request, reply) => {
        cache(reply).type('application/yaml; charset=utf-8');
        return app.swagger({ yaml: true });
      });
    }
  };
}
