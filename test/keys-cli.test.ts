/**
 * The key lifecycle as an operator runs it (spec: API key state): `jobledger keys create`, `rotate`,
 * `revoke`, `rename`, `list` as real processes, checked against the real app on the same database.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { useTestApp } from './helpers/app.ts';

const run = promisify(execFile);
const BIN = path.resolve(import.meta.dirname, '../bin/jobledger.js');

describe('jobledger keys', () => {
  const ctx = useTestApp({ key: false });
  const jobledger = (...args: string[]) =>
    run(process.execPath, [BIN, ...args], { env: { ...process.env, LOG_LEVEL: 'warn', CI: 'true', DATABASE_URL: ctx.t.url }, timeout: 60_000 });
  const status = async (secret: string) => (await ctx.app.inject({ method: 'GET', url: '/v1/me', headers: { authorization: `Bearer ${secret}` } })).statusCode;


  it('explains the lifecycle commands with --help', async () => {
    for (const command of ['rotate', 'revoke', 'rename']) {
      const { stdout } = await jobledger('keys', command, '--help');
      expect(stdout, command).toContain(`Usage: jobledger keys ${command}`);
    }
  });

  it('creates, rotates, renames and revokes a key; the old secret stops working at once', async () => {
    const created = await jobledger('keys', 'create', '--plan', 'growth', '--name', 'first', '--country', 'de');
    const secret = /secret \(shown once\): (\S+)/.exec(created.stdout)![1]!;
    const id = /^key ([0-9a-f-]{36}) \((jl_[a-z2-9]{8})/.exec(created.stdout)![1]!;
    const prefix = secret.slice(0, 11);
    expect(await status(secret)).toBe(200);
    expect((await ctx.app.inject({ method: 'GET', url: '/v1/me', headers: { authorization: `Bearer ${secret}` } })).json()).toMatchObject({
      plan: 'growth',
      country_lock: 'DE',
      entitlements: ['delta_feed', 'single_country'],
    });

    const rotated = await jobledger('keys', 'rotate', prefix);
    const fresh = /secret \(shown once\): (\S+)/.exec(rotated.stdout)![1]!;
    expect(fresh).not.toBe(secret);
    expect(fresh.startsWith(`${prefix}_`)).toBe(true);
    expect(rotated.stdout).toContain(id);
    expect(await status(secret)).toBe(401);
    expect(await status(fresh)).toBe(200);

    expect((await jobledger('keys', 'rename', id, 'renamed key')).stdout).toContain('is now named "renamed key"');
    const listed = (await jobledger('keys', 'list')).stdout;
    expect(listed).toContain('renamed key');
    expect(listed).toMatch(new RegExp(`${prefix}\\s+growth\\s+active\\s+DE\\s+\\d+ records`));
    expect(listed).not.toContain(fresh.slice(12));

    const revoked = await jobledger('keys', 'revoke', prefix);
    expect(revoked.stdout).toMatch(/revoked at \d{4}-/);
    expect(await status(fresh)).toBe(401);
    expect((await jobledger('keys', 'revoke', id)).stdout).toContain('was already revoked at');
    expect((await jobledger('keys', 'list')).stdout).toMatch(new RegExp(`${prefix}\\s+growth\\s+revoked`));
    // The row is kept for audit.
    expect(await ctx.t.db.selectFrom('api_keys').select('status').where('id', '=', id).executeTakeFirstOrThrow()).toEqual({ status: 'revoked' });

    await expect(jobledger('keys', 'rotate', prefix)).rejects.toMatchObject({ stderr: expect.stringContaining('is revoked; revocation is permanent') });
  });

  it('lists when a key was last used, written at most once a minute', async () => {
    const created = await jobledger('keys', 'create', '--plan', 'explore', '--name', 'usage');
    const secret = /secret \(shown once\): (\S+)/.exec(created.stdout)![1]!;
    const id = /^key ([0-9a-f-]{36})/.exec(created.stdout)![1]!;
    const line = async () => (await jobledger('keys', 'list')).stdout.split('\n').find((l) => l.startsWith(id))!;
    expect(await line()).toContain('last used never');

    const lastUsed = async () => (await ctx.t.db.selectFrom('api_keys').select('last_used_at').where('id', '=', id).executeTakeFirstOrThrow()).last_used_at;
    const before = Date.now();
    expect(await status(secret)).toBe(200);
    // The stamp is written off the request path: wait for it.
    let stamped = await lastUsed();
    for (let i = 0; !stamped && i < 100; i++) {
      await new Promise((r) => setTimeout(r, 50));
      stamped = await lastUsed();
    }
    expect(stamped!.getTime()).toBeGreaterThanOrEqual(before - 1000);
    expect(await line()).toContain(`last used ${stamped!.toISOString()}`);

    // Within the minute, further requests do not move it.
    expect(await status(secret)).toBe(200);
    await new Promise((r) => setTimeout(r, 200));
    expect(await lastUsed()).toEqual(stamped);
  });

  it('names the problem when a key does not exist', async () => {
    await expect(jobledger('keys', 'revoke', 'jl_zzzzzzzz')).rejects.toMatchObject({ stderr: expect.stringContaining('no key has the id or prefix "jl_zzzzzzzz"') });
  });
});
