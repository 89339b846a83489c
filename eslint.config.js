import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'data/', 'coverage/', 'bench/results/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', URL: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', AbortController: 'readonly', AbortSignal: 'readonly', TextDecoder: 'readonly', TextEncoder: 'readonly', structuredClone: 'readonly', fetch: 'readonly', performance: 'readonly', setImmediate: 'readonly', queueMicrotask: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-restricted-imports': ['error', { patterns: [{ group: ['**/main/*'], message: 'Nothing imports the composition roots in src/main.' }] }],
    },
  },
  {
    // The `jobledger` executable is the one place that imports the CLI composition root.
    files: ['bin/**/*.js'],
    rules: { 'no-restricted-imports': 'off' },
  },
  {
    files: ['src/domain/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['../*', '!./*'], message: 'domain imports nothing of ours outside domain.' }] }],
    },
  },
  {
    files: ['src/enrich/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['../ingest/*', '../store/*', '../http/*', '../access/*', '../reports/*', '../main/*'], message: 'enrich imports only domain.' }] }],
    },
  },
  {
    files: ['src/http/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['../ingest/*', '../../ingest/*', '../main/*', '../../main/*'], message: 'http never imports ingest or main.' }] }],
    },
  },
  {
    // One contract per route: a handler gets its query parsed from the route's table (src/http/route.ts).
    files: ['src/http/routes/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        { selector: "MemberExpression[property.name='query'][object.name='request']", message: 'Declare the parameter in the route\'s query table (src/http/schemas/) and read the parsed value serveRoute hands the handler.' },
      ],
    },
  },
);
