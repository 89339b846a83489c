/**
 * The website's static files, served from this server (no CDN): the stylesheet, the copy button, and
 * the ALTCHA widget with its PBKDF2 worker from the `altcha` package (its `external` build, whose
 * styles come as a file, so the CSP needs no inline styles). A fixed list, read once at start.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';

const require = createRequire(import.meta.url);
// The package exports no package.json: its main entry sits in dist/main.
const altchaDist = path.resolve(path.dirname(require.resolve('altcha')), '..');
const own = path.join(import.meta.dirname, 'assets');

const FILES: Record<string, { file: string; type: string }> = {
  'site.css': { file: path.join(own, 'site.css'), type: 'text/css; charset=utf-8' },
  'site.js': { file: path.join(own, 'site.js'), type: 'text/javascript; charset=utf-8' },
  'altcha.js': { file: path.join(altchaDist, 'external', 'altcha.min.js'), type: 'text/javascript; charset=utf-8' },
  'altcha.css': { file: path.join(altchaDist, 'external', 'altcha.css'), type: 'text/css; charset=utf-8' },
  'altcha-pbkdf2-worker.js': { file: path.join(altchaDist, 'workers', 'pbkdf2.js'), type: 'text/javascript; charset=utf-8' },
};

/** `GET /site/assets/{name}` for the files above; anything else is the app's 404. */
export function assetRoutes() {
  const bodies = new Map(Object.entries(FILES).map(([name, { file, type }]) => [name, { body: readFileSync(file), type }]));
  return async (app: FastifyInstance) => {
    app.get<{ Params: { name: string } }>('/site/assets/:name', async (request, reply) => {
      const asset = bodies.get(request.params.name);
      if (!asset) return reply.callNotFound();
      return reply.header('Cache-Control', 'public, max-age=3600').type(asset.type).send(asset.body);
    });
  };
}
