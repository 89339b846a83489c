/**
 * Liveness and the machine contract (spec: GET /health; GET /v1/openapi.json and /public/openapi.json,
 * "keyless to read", rendered live from the route schemas).
 */
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';

/** Cache lifetime of the keyless contract, seconds (spec: Keyless endpoints table). */
export const PUBLIC_OPENAPI_MAX_AGE = 3600;

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
      const cache = prefix === '/public' ? `public, max-age=${PUBLIC_OPENAPI_MAX_AGE}` : 'no-cache';
      app.get(`${prefix}/openapi.json`, { schema: { hide: true } }, async (_request, reply) => {
        reply.header('Cache-Control', cache).type('application/json; charset=utf-8');
        return JSON.stringify(app.swagger());
      });
      app.get(`${prefix}/openapi.yaml`, { schema: { hide: true } }, async (_request, reply) => {
        reply.header('Cache-Control', cache).type('application/yaml; charset=utf-8');
        return app.swagger({ yaml: true });
      });
    }
  };
}
