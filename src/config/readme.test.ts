/**
 * The README stays true: it opens with the two commands, and its configuration table lists every
 * setting the service reads with the default the code uses.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SETTINGS } from './config.ts';

const readme = readFileSync(path.resolve(import.meta.dirname, '../../README.md'), 'utf8');

describe('the README', () => {
  it('opens with the run and test commands', () => {
    const head = readme.split('\n').slice(0, 10).join('\n');
    expect(head).toContain('npm ci && npm start');
    expect(head).toContain('npm test');
  });

  it('documents every environment variable with its real default', () => {
    for (const s of SETTINGS) {
      const shown = s.default === undefined ? '(unset)' : s.default === '' ? '(empty)' : `\`${s.default}\``;
      expect(readme, s.env).toContain(`| \`${s.env}\` | ${shown} |`);
    }
  });
});
