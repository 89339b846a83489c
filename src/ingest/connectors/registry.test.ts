/**
 * The registry is complete and consistent: every connector module is registered, and what the rest of
 * the service derives from the descriptors (settings, providers rows, replay routes, apply hosts,
 * fixtures, the README list) cannot collide or go missing.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SETTINGS } from '../../config/config.ts';
import { FIXTURES_DIR } from '../bundled-feeds.ts';
import { baseUrlEnv, type ConnectorDescriptor } from '../connector.ts';
import { CONNECTORS, CONNECTOR_IDS, applyHosts, connectorModule, connectorTable, createConnectors, providerRows } from './registry.ts';

const here = import.meta.dirname;
const readme = readFileSync(path.resolve(here, '../../../README.md'), 'utf8');
/** Modules of this folder that are not connectors. */
const NOT_CONNECTORS = new Set(['common.ts', 'registry.ts']);
/** The descriptors, seen through the interface (optional parts included). */
const all: readonly ConnectorDescriptor[] = CONNECTORS;

describe('the connector registry', () => {
  it('registers every connector module of src/ingest/connectors/ by its exported descriptor', async () => {
    const modules = readdirSync(here).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && !NOT_CONNECTORS.has(f));
    expect(modules.length).toBeGreaterThan(0);
    for (const file of modules) {
      const mod = (await import(path.join(here, file))) as { descriptor?: { id: string } };
      expect(mod.descriptor, `${file} exports no descriptor`).toBeDefined();
      expect(connectorModule(mod.descriptor!.id), `${file}: a connector module is named after its id`).toBe(file);
      expect(CONNECTORS, `${file} is not in CONNECTORS (registry.ts)`).toContain(mod.descriptor);
    }
    expect(CONNECTORS.length).toBe(modules.length);
  });

  it('has unique ids, settings and replay routes', () => {
    expect(new Set(CONNECTOR_IDS).size).toBe(CONNECTORS.length);
    const envs = all.flatMap((c) => (c.baseUrl ? [baseUrlEnv(c.id)] : []));
    expect(new Set(envs).size).toBe(envs.length);
    // No request path is claimed by two connectors' replay routes: each one's own sample path matches only it.
    for (const c of all) {
      if (!c.replay) continue;
      const sample = samplePath(c.replay.pattern);
      const matching = all.filter((o) => o.replay?.pattern.test(sample));
      expect(matching.map((o) => o.id), `${c.id} ${sample}`).toEqual([c.id]);
    }
  });

  it('gives each connector its base-URL setting, providers row, fixtures and README row', () => {
    const rows = providerRows();
    for (const c of all) {
      // A connector without a base URL takes absolute URLs as boards (career_site); the rest have a setting.
      if (c.baseUrl) {
        const setting = SETTINGS.find((s) => s.env === baseUrlEnv(c.id));
        expect(setting?.default, c.id).toBe(c.baseUrl.default);
        expect(() => new URL(c.baseUrl!.default)).not.toThrow();
      }
      // A bundled feed is replayed under a base URL; an agency API without a licensed recording has a base URL and no replay.
      if (c.replay) expect(Boolean(c.baseUrl), `${c.id}: a bundled feed is replayed under a base URL`).toBe(true);
      expect(rows.find((r) => r.id === c.id)).toMatchObject({ label: c.provider.label, sourceType: c.provider.sourceType });
      // A provider is either served or discovery-only (the providers table's CHECK).
      expect(c.provider.redistributable && c.provider.discoveryOnly, c.id).toBe(false);
      expect(Boolean(c.fixtures), `${c.id}: replayed feeds come from fixtures`).toBe(Boolean(c.replay));
      if (c.fixtures) expect(existsSync(path.join(FIXTURES_DIR, c.id, c.fixtures.notice)), `fixtures/${c.id}/${c.fixtures.notice}`).toBe(true);
      for (const host of [...applyHosts(c.id).ats, ...applyHosts(c.id).agency]) expect(host).toMatch(/^[a-z0-9.-]+\.[a-z]{2,}$/);
    }
    expect(readme).toContain(connectorTable());
  });

  it('creates each connector with its own id and base URL', () => {
    // URL templates keep their placeholder ({company}.recruitee.com): the board fills it in.
    const urls = Object.fromEntries(all.map((c) => [c.id, c.baseUrl?.default.includes('{') ? c.baseUrl.default.replace('https://', `https://${c.id}.example/`) : `https://${c.id}.example`])) as Parameters<typeof createConnectors>[0];
    const connectors = createConnectors(urls);
    for (const c of all) {
      expect(connectors[c.id as keyof typeof connectors].id).toBe(c.id);
      const board = c.id === 'workday' ? 'acme.wd1.myworkdayjobs.com/acme/Careers' : c.baseUrl ? 'b' : 'https://careers.example/jobs';
      expect(connectors[c.id as keyof typeof connectors].boardUrl({ id: `${c.id}:b`, providerId: c.id, board })).toContain(c.baseUrl ? `https://${c.id}.example` : board);
    }
  });
});

/** A request path a connector's replay route answers: its pattern with the board group filled in. */
function samplePath(pattern: RegExp): string {
  return pattern.source
    .replace(/^\^/, '')
    .replace(/\$$/, '')
    .replaceAll('([^/]+)', 'board')
    .replace(/\(\?:[^)]*\)\?/g, '')
    .replace(/\((\w+)\|[^)]*\)/g, '$1')
    .replace(/\\\/\?$/, '')
    .replace(/\\(.)/g, '$1');
}
