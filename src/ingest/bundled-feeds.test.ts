/**
 * The target lists declare whether each payload is recorded, and the demo's list refuses a hand-written
 * target with a message naming it (issue 23).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEMO_MANIFEST, readDemoTargets, readFixtureTargets, TEST_TARGETS } from './bundled-feeds.ts';

describe('bundled fixture targets', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'jobledger-targets-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  const write = (entries: unknown[]) => fs.writeFileSync(path.join(dir, DEMO_MANIFEST), JSON.stringify(entries));

  it('holds only recorded targets in the demo manifest and only hand-written ones in the test list', async () => {
    const demo = await readDemoTargets();
    expect(demo.every((t) => t.recorded)).toBe(true);
    expect(demo.map((t) => `${t.provider}:${t.board}`)).toEqual(expect.arrayContaining(['greenhouse:anthropic', 'lever:spotify']));
    const test = await readFixtureTargets(TEST_TARGETS);
    expect(test.length).toBeGreaterThan(0);
    expect(test.every((t) => !t.recorded)).toBe(true);
  });

  it('refuses a hand-written target in the demo manifest, naming it', async () => {
    write([
      { provider: 'ashby', board: 'ramp', recorded: true },
      { provider: 'lever', board: 'kestrel-mobility', recorded: false, company: 'Kestrel Mobility' },
    ]);
    await expect(readDemoTargets(dir)).rejects.toThrow(/recorded payloads only.*lever:kestrel-mobility.*test-targets\.json/);
  });

  it('refuses a target that does not say whether its payload is recorded, or names an unknown provider', async () => {
    write([{ provider: 'ashby', board: 'ramp' }]);
    await expect(readDemoTargets(dir)).rejects.toThrow(/ashby:ramp\) does not say whether its payload is recorded/);
    write([{ provider: 'taleo', board: 'acme', recorded: true }]);
    await expect(readDemoTargets(dir)).rejects.toThrow(/unknown provider "taleo"/);
  });

  it('accepts a manifest of recorded targets', async () => {
    write([{ provider: 'ashby', board: 'ramp', recorded: true, company: 'Ramp' }]);
    expect(await readDemoTargets(dir)).toEqual([{ provider: 'ashby', board: 'ramp', recorded: true, company: 'Ramp' }]);
  });
});
