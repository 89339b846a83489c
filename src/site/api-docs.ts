/**
 * `GET /docs`: the interactive API reference (issue 19, "A docs page"). Scalar's standalone build
 * (`@scalar/api-reference`, served from this server, no CDN) renders the live OpenAPI document
 * (`/v1/openapi.json`), with "try it" against this server. The page and its two scripts are files;
 * nothing is inline.
 *
 * Content-Security-Policy: the site's strict policy, but for one relaxation on this page only:
 * `style-src 'unsafe-inline'`, because Scalar sets styles at run time (its Vue components). Scripts
 * stay `'self'`, connections `'self'` (try-it calls this origin only), fonts the system's
 * (`withDefaultFonts: false`: no font CDN).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';

const require = createRequire(import.meta.url);
const scalarBrowser = path.join(path.dirname(require.resolve('@scalar/api-reference')), 'browser', 'standalone.js');
const startUp = path.join(import.meta.dirname, 'assets', 'api-docs.js');

/** The CSP of `/docs` (see the module comment for the one relaxation). */
export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join('; ');

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>jobledger API reference</title>
</head>
<body>
<div id="reference"></div>
<script src="/docs/assets/scalar.js"></script>
<script src="/docs/assets/api-docs.js"></script>
</body>
</html>
`;

/**
 * The standalone build without its `@font-face` rules for Scalar's font CDN (fonts.scalar.com): the
 * page uses system fonts (api-docs.js), and a rule left in would make the browser try the CDN, which
 * the CSP refuses. Done once, when the routes are made.
 */
export function withoutFontCdn(bundle: string): string {
  return bundle.replace(/@font-face\s*\{[^}]*fonts\.scalar\.com[^}]*\}/g, '');
}

/** `/docs` and its two scripts; register inside the site's scope (after helmet). */
export function apiDocsRoutes() {
  const scripts: Record<string, string> = { 'scalar.js': withoutFontCdn(readFileSync(scalarBrowser, 'utf8')), 'api-docs.js': readFileSync(startUp, 'utf8') };
  return async (app: FastifyInstance) => {
    app.get('/docs', async (_request, reply) =>
      reply.header('Content-Security-Policy', DOCS_CSP).header('Cache-Control', 'public, max-age=300').type('text/html; charset=utf-8').send(PAGE),
    );
    app.get<{ Params: { name: string } }>('/docs/assets/:name', async (request, reply) => {
      const body = scripts[request.params.name];
      if (!body) return reply.callNotFound();
      return reply.header('Cache-Control', 'public, max-age=3600').type('text/javascript; charset=utf-8').send(body);
    });
  };
}
