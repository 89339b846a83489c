/**
 * Ignored query parameters are named, never silently dropped (issue 19, HTTP conventions): the spec
 * ignores unknown names (spec: Deliberate non-errors), and a client that misspells a filter would
 * otherwise get an unfiltered page with no hint. A response to a data API route whose query held names
 * the route's parameter table (`src/http/schemas/`) does not declare carries
 *
 *   X-Ignored-Params: contry, foo
 *   X-Ignored-Params-Did-You-Mean: contry=country
 *
 * The second header appears only for a near miss of a declared name. Neither is ever an error.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { closest, distance } from 'fastest-levenshtein';
import type { ParamTable } from '../query-table.ts';

/** Response header naming the ignored parameters, comma-separated, in the order sent. */
export const IGNORED_PARAMS_HEADER = 'X-Ignored-Params';
/** Response header pairing an ignored name with the declared name it nearly spells: `sent=declared`. */
export const DID_YOU_MEAN_HEADER = 'X-Ignored-Params-Did-You-Mean';

/** At most this many names are listed: a header stays short whatever a client sends. */
const MAX_NAMED = 20;

/**
 * The declared name `sent` nearly spells, or undefined. Near: a case-only difference, or a Levenshtein
 * distance of 1 for names up to 4 characters and of 2 beyond (the usual threshold of spelling
 * suggesters, e.g. git's and npm's, which suggest at most a couple of edits away).
 */
export function nearMiss(sent: string, declared: readonly string[]): string | undefined {
  if (declared.length === 0) return undefined;
  const folded = declared.find((name) => name.toLowerCase() === sent.toLowerCase());
  if (folded) return folded;
  const best = closest(sent, declared as string[]);
  const edits = distance(sent, best);
  return edits <= (sent.length <= 4 ? 1 : 2) ? best : undefined;
}

/** A name as a header can carry it: percent-encoded unless it is plain ASCII without a comma or `=`. */
function headerSafe(name: string): string {
  return /^[\x21-\x7e]+$/.test(name) && !/[,=]/.test(name) ? name : encodeURIComponent(name);
}

function declaredNames(request: FastifyRequest): string[] {
  const table = (request.routeOptions.config as { query?: { params: ParamTable<never> } } | undefined)?.query?.params;
  return table ? Object.keys(table) : [];
}

/**
 * Name the ignored parameters of every data API response (`/v1/…`, `/public/…`). Set in `onRequest`
 * so that an error response (a 422 for a declared parameter's bad value, a 429) names them too.
 */
export function installIgnoredParams(app: FastifyInstance): void {
  app.addHook('onRequest', async (request, reply) => {
    const path = request.url.split('?', 1)[0]!;
    if (!path.startsWith('/v1/') && !path.startsWith('/public/')) return;
    if (!request.routeOptions.url) return; // no route: the 404 says so
    const declared = declaredNames(request);
    const sent = Object.keys((request.query ?? {}) as Record<string, unknown>);
    const ignored = sent.filter((name) => !declared.includes(name)).slice(0, MAX_NAMED);
    if (ignored.length === 0) return;
    reply.header(IGNORED_PARAMS_HEADER, ignored.map(headerSafe).join(', '));
    const hints = ignored.flatMap((name) => {
      const hit = nearMiss(name, declared);
      return hit ? [`${headerSafe(name)}=${hit}`] : [];
    });
    if (hints.length > 0) reply.header(DID_YOU_MEAN_HEADER, hints.join(', '));
  });
}
