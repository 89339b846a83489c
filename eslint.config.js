import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/*
 * The import graph (docs/architecture.md "Layers"), enforced per folder of src/. A folder's block
 * replaces the rule options of the blocks before it, so each block repeats the rules that hold
 * everywhere (nothing imports src/main; only src/store speaks SQL) through `imports()`.
 */

/** Nothing imports the composition roots. */
const MAIN = { group: ['**/main/*'], message: 'Nothing imports the composition roots in src/main.' };

/**
 * Only src/store speaks SQL. A type-only import of the Kysely handle is allowed, so a layer can hold
 * the connection and pass it to a repository; building SQL needs a value import (`sql`) or a
 * query-builder call, and both are refused outside the store (see QUERY_BUILDER below).
 */
const KYSELY = {
  name: 'kysely',
  allowTypeImports: true,
  message: 'Only src/store speaks SQL: add or use a repository function there (a type-only import of Kysely is fine).',
};

/**
 * `@typescript-eslint/no-restricted-imports` options: the rules that hold everywhere in src/, plus
 * `forbidden` folders of src/ (as `**\/<folder>/*` patterns) with the layer's `message`.
 */
function imports({ forbidden = [], message = '', extra = [], sql = false } = {}) {
  const patterns = [MAIN, ...extra];
  if (forbidden.length > 0) patterns.push({ group: forbidden.map((folder) => `**/${folder}/*`), message });
  return ['error', { paths: sql ? [] : [KYSELY], patterns }];
}

/** Kysely's query-builder entry points, called on a connection or a transaction. */
const BUILDER_CALLS = ['selectFrom', 'selectNoFrom', 'insertInto', 'replaceInto', 'updateTable', 'deleteFrom', 'mergeInto', 'transaction'];
const WRITE_CALLS = ['insertInto', 'replaceInto', 'updateTable', 'deleteFrom', 'mergeInto'];
const calls = (names, message) => ({
  selector: `CallExpression[callee.type='MemberExpression'][callee.property.name=/^(${names.join('|')})$/]`,
  message,
});
const QUERY_BUILDER = calls(BUILDER_CALLS, 'Only src/store speaks SQL: move this query into a repository there.');

export default tseslint.config(
  { ignores: ['node_modules/', 'data/', 'coverage/', 'bench/results/', 'packages/*/dist/', 'packages/*/src/generated/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', URL: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', AbortController: 'readonly', AbortSignal: 'readonly', TextDecoder: 'readonly', TextEncoder: 'readonly', structuredClone: 'readonly', fetch: 'readonly', performance: 'readonly', setImmediate: 'readonly', queueMicrotask: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      // Tests, scripts and the benchmark harness may query the ledger directly; src/ may not (below).
      '@typescript-eslint/no-restricted-imports': imports({ sql: true }),
    },
  },
  {
    // The `jobledger` executable is the one place that imports the CLI composition root.
    files: ['bin/**/*.js'],
    rules: { '@typescript-eslint/no-restricted-imports': 'off' },
  },
  {
    files: ['src/**/*.ts'],
    ignores: ['src/**/*.test.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': imports(),
      'no-restricted-syntax': ['error', QUERY_BUILDER],
    },
  },
  {
    files: ['src/domain/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': imports({ extra: [{ group: ['../*', '!./*'], message: 'domain imports nothing of ours outside domain.' }] }),
    },
  },
  {
    files: ['src/enrich/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': imports({ forbidden: ['ingest', 'store', 'http', 'access', 'reports', 'config', 'bench', 'accounts', 'mail', 'site'], message: 'enrich imports only domain.' }),
    },
  },
  {
    // The store is the SQL layer: rows in, rows out, with domain types and decisions.
    files: ['src/store/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': imports({
        sql: true,
        forbidden: ['access', 'enrich', 'http', 'ingest', 'reports', 'config', 'bench', 'accounts', 'mail', 'site'],
        message: 'store imports only domain: decisions live in domain, shapes served in http/presenters.',
      }),
      'no-restricted-syntax': 'off',
    },
  },
  {
    files: ['src/access/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': imports({ forbidden: ['enrich', 'http', 'ingest', 'reports', 'config', 'bench', 'accounts', 'mail', 'site'], message: 'access imports only domain and store.' }),
    },
  },
  {
    // Declared exception: a report is a read model, one aggregate query per number next to the text
    // that defines the number (`definitions`, `note`), so reports keep their SELECTs (populations from
    // store/populations.ts) instead of splitting each number from its definition. They never write:
    // snapshots are stored through store/report-snapshots.ts.
    files: ['src/reports/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': imports({ sql: true, forbidden: ['access', 'http', 'ingest', 'config', 'bench', 'accounts', 'mail', 'site'], message: 'reports import only domain, enrich and store.' }),
      'no-restricted-syntax': ['error', calls(WRITE_CALLS, 'Reports only read: write through a repository in src/store.')],
    },
  },
  {
    // The billing room: decisions over the store's repositories and a payment provider; the HTTP layer
    // calls it, never the other way round. Settings arrive as a plain object from the composition root.
    files: ['src/billing/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': imports({ forbidden: ['enrich', 'http', 'ingest', 'reports', 'config', 'bench'], message: 'billing imports only domain, store and access.' }),
    },
  },
  {
    files: ['src/http/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': imports({ forbidden: ['ingest', 'bench'], message: 'http never imports ingest or bench.' }),
    },
  },
  {
    // The website's rooms (docs/website.md): accounts decide over domain, store and access; mail only sends.
    files: ['src/accounts/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': imports({ forbidden: ['enrich', 'http', 'ingest', 'reports', 'config', 'bench', 'mail', 'site'], message: 'accounts import only domain, store and access.' }),
    },
  },
  {
    files: ['src/mail/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': imports({ forbidden: ['domain', 'enrich', 'store', 'access', 'http', 'ingest', 'reports', 'config', 'bench', 'accounts', 'site'], message: 'mail imports nothing of ours: it sends what it is given.' }),
    },
  },
  {
    files: ['src/site/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': imports({
        forbidden: ['ingest', 'bench', 'config'],
        message: 'site never imports ingest, bench or config (settings come from serve).',
        // Billing's checkout route is handed to the site by http/app.ts (SiteServices.checkoutRoute).
        extra: [{ group: ['**/http/routes/*'], message: 'site never imports the data API\'s routes: http/app.ts hands it the ones it mounts (SiteServices).' }],
      }),
      },
    },
    {
    // The MCP server's tools answer through the /v1 routes (docs/mcp.md), so it never reaches the store.
    files: ['src/mcp/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': imports({ forbidden: ['ingest', 'bench', 'store'], message: 'mcp calls the /v1 routes: no store, ingest or bench.' }),
    },
  },
  {
    // Declared exception: the benchmark ledger generator (`jobledger bench-seed`) writes synthetic rows
    // by set-based SQL with triggers off (session_replication_role = replica), into a database of its
    // own; it is not a ledger path and never runs in serve or the worker.
    files: ['src/bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': imports({ sql: true }),
      'no-restricted-syntax': 'off',
    },
  },
  {
    // One contract per route: a handler gets its query parsed from the route's table (src/http/route.ts).
    // This block replaces the src/ block's no-restricted-syntax options, so it repeats QUERY_BUILDER.
    files: ['src/http/routes/**/*.ts'],
    ignores: ['src/**/*.test.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        QUERY_BUILDER,
        { selector: "MemberExpression[property.name='query'][object.name='request']", message: 'Declare the parameter in the route\'s query table (src/http/schemas/) and read the parsed value serveRoute hands the handler.' },
      ],
    },
  },
);
