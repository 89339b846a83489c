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
import { CONNECTORS, CONNECTOR_IDS, applyHosts, connectorTable, createConnectors, providerRows } from './registry.ts';

const here = import.meta.dirname;
const readme = readFileSync(path.resolve(here, '../../../README.md'), 'utf8');
/** Modules of this folder that are not connectors. */
const NOT_CONNECTORS = new Set(['common.ts', 'registry.ts']);

describe('the connector registry', () => {
  it('registers every connector module of src/ingest/connectors/ by its exported descriptor', async () => {
    const modules = readdirSync(here).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && !NOT_CONNECTORS.has(f));
    expect(modules.length).toBeGreaterThan(0);
    for (const file of modules) {
      const mod = (await import(path.join(here, file))) as { descriptor?: { id: string } };
      expect(mod.descriptor, `${file} exports no descriptor`).toBeDefined();
      expect(mod.descriptor!.id, `${file}: a connector module is named after its id`).toBe(file.replace(/\.ts$/, ''));
      expect(CONNECTORS, `${file} is not in CONNECTORS (registry.ts)`).toContain(mod.descriptor);
    }
    expect(CONNECTORS.length).toBe(modules.length);
  });

  it('has unique ids, settings and replay routes', () => {
    expect(new Set(CONNECTOR_IDS).size).toBe(CONNECTORS.length);
    expect(new Set(CONNECTORS.map((c) => c.baseUrl.env)).size).toBe(CONNECTORS.length);
    // No request path is claimed by two connectors' replay routes: each one's own sample path matches only it.
    for (const c of CONNECTORS) {
      const matching = CONNECTORS.filter((o) => o.replay.pattern.test(samplePath(c)));
      expect(matching.map((o) => o.id), `${c.id} ${samplePath(c)}`).toEqual([c.id]);
    }
  });

  it('gives each connector its base-URL setting, providers row, fixtures and README row', () => {
    const rows = providerRows();
    for (const c of CONNECTORS) {
      const setting = SETTINGS.find((s) => s.env === c.baseUrl.env);
      expect(setting?.default, c.id).toBe(c.baseUrl.default);
      expect(() => new URL(c.baseUrl.default)).not.toThrow();
      expect(rows.find((r) => r.id === c.id)).toMatchObject({ label: c.provider.label, sourceType: c.provider.sourceType });
      // A provider is either served or discovery-only (the providers table's CHECK).
      expect(c.provider.redistributable && c.provider.discoveryOnly, c.id).toBe(false);
      expect(existsSync(path.join(FIXTURES_DIR, c.id, c.fixtures.notice)), `fixtures/${c.id}/${c.fixtures.notice}`).toBe(true);
      for (const host of [...applyHosts(c.id).ats, ...applyHosts(c.id).agency]) expect(host).toMatch(/^[a-z0-9.-]+\.[a-z]{2,}$/);
    }
    expect(readme).toContain(connectorTable());
  });

  it('creates each connector with its own id and base URL', () => {
    const urls = Object.fromEntries(CONNECTORS.map((c) => [c.id, `https://${c.id}.example`])) as Parameters<typeof createConnectors>[0];
    const connectors = createConnectors(urls);
    for (const c of CONNECTORS) {
      expect(connectors[c.id].id).toBe(c.id);
      expect(connectors[c.id].boardUrl({ id: `${c.id}:b`, providerId: c.id, board: 'b' })).toContain(`https://${c.id}.example`);
    }
  });
});

/** A request path the connector's replay route answers: its pattern with the board group filled in. */
function samplePath(c: (typeof CONNECTORS)[number]): string {
  return c.replay.pattern.source
    .replace(/^\^/, '')
    .replace(/\$$/, '')
    .replace('([^/]+)', 'board')
    .replace(/\\\/\?$/, '')
    .replace(/\\(.)/g, '$1');
}
