/**
 * The configuration schema is the one source: its defaults load, every refusal names its variable,
 * and the README's table is the one the schema prints.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, SETTINGS, configCheckText, configTable, configText, loadConfig, maskSecret, stripeSettings } from './config.ts';

const readme = readFileSync(path.resolve(import.meta.dirname, '../../README.md'), 'utf8');

describe('the configuration schema', () => {
  it('loads its defaults from an empty environment', () => {
    const config = loadConfig({}, '/srv');
    expect(config.port).toBe(8080);
    expect(config.databaseUrl).toBeUndefined();
    expect(config.dataDir).toBe('/srv/data');
    expect(config.ingestStatementTimeoutMs).toBe(120_000);
    expect(config.absence.minSeconds).toBe(24 * 3600);
    expect(config.fetch.allow).toEqual([]);
    expect(config.worker.inServe).toBe(true);
  });

  it('reads each kind of value from the environment', () => {
    const config = loadConfig(
      {
        PORT: '9000',
        JOBLEDGER_SERVE_WORKER: 'No',
        JOBLEDGER_FETCH_ALLOW: ' 127.0.0.1/32 , ,[::1]:9000',
        JOBLEDGER_ASHBY_BASE_URL: 'http://127.0.0.1:1234//',
        JOBLEDGER_NOT_SEEN_MIN_HOURS: '2',
        LOG_LEVEL: 'debug',
      },
      '/srv',
    );
    expect(config.port).toBe(9000);
    expect(config.worker.inServe).toBe(false);
    expect(config.fetch.allow).toEqual(['127.0.0.1/32', '[::1]:9000']);
    expect(config.sources.ashby).toBe('http://127.0.0.1:1234');
    expect(config.absence.minSeconds).toBe(7200);
    expect(config.logLevel).toBe('debug');
  });

  it.each([
    [{ PORT: '70000' }, 'PORT must be an integer from 0 to 65535, got "70000"'],
    [{ JOBLEDGER_SERVE_WORKER: 'maybe' }, 'JOBLEDGER_SERVE_WORKER must be true or false'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent'],
    [{ JOBLEDGER_DOCS_URL: 'ftp://example.com' }, 'JOBLEDGER_DOCS_URL must be an absolute http or https URL'],
    [{ JOBLEDGER_REDIS_KEY_PREFIX: 'a b' }, 'JOBLEDGER_REDIS_KEY_PREFIX must be 1 to 64 letters'],
    [{ JOBLEDGER_INGEST_STATEMENT_TIMEOUT_MS: '5' }, 'JOBLEDGER_INGEST_STATEMENT_TIMEOUT_MS must be an integer'],
  ])('refuses %o naming the variable', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  it('sells no plans by default, and reads the Stripe settings only as a whole', () => {
    expect(stripeSettings(loadConfig({}).stripe)).toBeUndefined();
    const stripe = {
      JOBLEDGER_STRIPE_SECRET_KEY: 'sk_test_abc',
      JOBLEDGER_STRIPE_WEBHOOK_SECRET: 'whsec_abc',
      JOBLEDGER_STRIPE_API_URL: 'http://127.0.0.1:12111/',
      JOBLEDGER_STRIPE_PRICES: 'growth=price_1A, scale=price_1C',
    };
    expect(stripeSettings(loadConfig(stripe).stripe)).toEqual({
      secretKey: 'sk_test_abc',
      webhookSecret: 'whsec_abc',
      apiUrl: 'http://127.0.0.1:12111',
      prices: { growth: 'price_1A', scale: 'price_1C' },
    });
    const refusals: Array<[Record<string, string>, string | RegExp]> = [
      [{ ...stripe, JOBLEDGER_STRIPE_WEBHOOK_SECRET: '' }, 'JOBLEDGER_STRIPE_SECRET_KEY is set but JOBLEDGER_STRIPE_WEBHOOK_SECRET is not'],
      [{ ...stripe, JOBLEDGER_STRIPE_PRICES: '' }, 'JOBLEDGER_STRIPE_PRICES names no plan=price_id pair'],
      [{ ...stripe, JOBLEDGER_STRIPE_PRICES: 'growth' }, 'JOBLEDGER_STRIPE_PRICES entries must read plan=price_id, got "growth"'],
      [{ ...stripe, JOBLEDGER_STRIPE_SECRET_KEY: '' }, 'need JOBLEDGER_STRIPE_SECRET_KEY'],
      [{ ...stripe, JOBLEDGER_STRIPE_API_URL: 'https://api.stripe.com/v1' }, 'JOBLEDGER_STRIPE_API_URL must be a scheme, host and port only'],
      [{ ...stripe, JOBLEDGER_STRIPE_SECRET_KEY: 'pk_live_oops' }, /^JOBLEDGER_STRIPE_SECRET_KEY must start with sk_ or rk_ \(a Stripe secret or restricted key\)$/],
    ];
    for (const [env, message] of refusals) expect(() => loadConfig(env), JSON.stringify(env)).toThrow(message);
  });

  it('never echoes a refused database URL (it may hold a password)', () => {
    expect(() => loadConfig({ DATABASE_URL: 'mysql://root:hunter2@db' })).toThrow(/^DATABASE_URL must start with postgres:\/\/ or postgresql:\/\/$/);
  });

  it('prints the README configuration table and `jobledger config` from the same settings', () => {
    expect(readme).toContain(configTable());
    for (const s of SETTINGS) expect(configText()).toContain(`${s.env}=${s.default ?? ''}\n    ${s.description}\n`);
    expect(new Set(SETTINGS.map((s) => s.env)).size).toBe(SETTINGS.length);
  });
});

describe('jobledger config --check', () => {
  it('prints effective values with secrets masked, and names defaults', () => {
    const { text, ok } = configCheckText({ DATABASE_URL: 'postgres://app:s3cret@db.internal:5432/ledger?sslmode=verify-full&password=x2', PORT: '9000', JOBLEDGER_STRIPE_SECRET_KEY: '' }, '/srv');
    expect(ok).toBe(true);
    expect(text).toContain('PORT=9000\n');
    expect(text).toContain('HOST=0.0.0.0  (default)');
    expect(text).toContain('DATABASE_URL=postgres://app:***@db.internal:5432/ledger?sslmode=verify-full&password=***\n');
    expect(text).not.toContain('s3cret');
    expect(text).not.toContain('x2');
    expect(text).toMatch(/configuration is valid\n$/);
  });

  it('masks a secret that is not a URL entirely', () => {
    expect(maskSecret('sk_live_abcdef')).toBe('*** (set)');
  });

  it('reports every invalid value, and the checks across settings, as not ok', () => {
    const bad = configCheckText({ PORT: 'abc', LOG_LEVEL: 'loud', REDIS_URL: 'http://pw@x' });
    expect(bad.ok).toBe(false);
    expect(bad.text).toContain('PORT=abc  INVALID: PORT must be an integer from 0 to 65535, got "abc"');
    expect(bad.text).toContain('LOG_LEVEL=loud  INVALID:');
    expect(bad.text).toContain('3 invalid settings');
    const cross = configCheckText({ JOBLEDGER_STRIPE_SECRET_KEY: 'sk_test_123' });
    expect(cross.ok).toBe(false);
    expect(cross.text).toContain('INVALID: JOBLEDGER_STRIPE_SECRET_KEY is set but JOBLEDGER_STRIPE_WEBHOOK_SECRET is not');
    expect(cross.text).not.toContain('sk_test_123');
  });
});
