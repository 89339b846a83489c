/**
 * `npm run lint:openapi`: lint the OpenAPI document the server serves with Redocly CLI under the
 * rules of `redocly.yaml` (`recommended-strict`: every warning is an error). Part of `npm test`.
 *
 * The document is rendered in process from the real app (packages/sdk/scripts/openapi-document.ts:
 * no database is touched), written as JSON and as YAML to {@link LINT_DIR}, and linted in both forms.
 * Exit status: 0 with zero problems, 1 otherwise (each problem printed).
 *
 * One problem is accepted, in `.redocly.lint-ignore.yaml` (which names the files by this fixed path):
 * `operation-2xx-response` on `POST /public/checkout`, a website form route whose success is a 303
 * redirect to the payment page by design (docs/website.md).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { liveDocument } from '../packages/sdk/scripts/openapi-document.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const REDOCLY = createRequire(import.meta.url).resolve('@redocly/cli/bin/cli.js');

const document = await liveDocument();
/** Where the rendered document is linted: a fixed path, so the ignore file can name it. */
export const LINT_DIR = path.join(ROOT, 'node_modules', '.cache', 'openapi-lint');
const dir = LINT_DIR;
mkdirSync(dir, { recursive: true });
let failed = false;
{
  const files = { json: path.join(dir, 'openapi.json'), yaml: path.join(dir, 'openapi.yaml') };
  writeFileSync(files.json, JSON.stringify(document, null, 2));
  writeFileSync(files.yaml, stringify(document));
  for (const file of Object.values(files)) {
    const run = spawnSync(process.execPath, [REDOCLY, 'lint', file, '--format=stylish', `--config=${path.join(ROOT, 'redocly.yaml')}`], {
      encoding: 'utf8',
      cwd: ROOT,
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    });
    process.stdout.write(`${path.basename(file)}: ${run.status === 0 ? 'valid' : 'problems'}\n`);
    if (run.status !== 0) {
      failed = true;
      process.stdout.write(run.stdout + run.stderr);
    }
  }
}
process.exit(failed ? 1 : 0);
