#!/usr/bin/env node
// The `jobledger` command. npm puts node_modules/.bin first on PATH for `npx` and npm scripts, so
// `node` here is the pinned Node.js 24 (package `node`), which runs the TypeScript sources directly.
import '../src/main/cli.ts';
