/**
 * The connector registry: every built-in connector's descriptor, and everything derived from them
 * (the id union and list, the base-URL settings of the configuration schema, the `providers` rows, the
 * quality gate's apply hosts, the replay server's routes and base URLs, the README's connector list).
 *
 * Adding a connector: its module `connectors/<id>.ts` (underscores as hyphens) exporting `descriptor`, one line in
 * {@link CONNECTORS}, its fixtures and tests (docs/architecture.md "How to add ... A connector").
 * `registry.test.ts` fails when a connector module is missing here or two descriptors collide.
 */
import type { Kysely } from 'kysely';
import { Type, type TObject } from 'typebox';
import { Setting, type SettingMeta } from '../../config/setting.ts';
import { upsertProviders, type ProviderInput } from '../../store/providers.ts';
import type { DB } from '../../store/schema.ts';
import { baseUrlEnv, type Connector, type ConnectorDescriptor, type ConnectorSettings } from '../connector.ts';
import { descriptor as arbeitnow } from './arbeitnow.ts';
import { descriptor as ashby } from './ashby.ts';
import { descriptor as careerSite, type CareerSiteOptions } from './career-site.ts';
import { descriptor as greenhouse } from './greenhouse.ts';
import { descriptor as himalayas } from './himalayas.ts';
import { descriptor as lever } from './lever.ts';
import { descriptor as remotive } from './remotive.ts';
import { descriptor as usajobs } from './usajobs.ts';
import { descriptor as smartrecruiters } from './smartrecruiters.ts';
import { descriptor as recruitee } from './recruitee.ts';
import { descriptor as workable } from './workable.ts';
import { descriptor as personio } from './personio.ts';
import { descriptor as workday } from './workday.ts';
import { descriptor as nav } from './nav.ts';
import { descriptor as jobtech } from './jobtech.ts';
import { descriptor as bundesagentur } from './bundesagentur.ts';
import { descriptor as usajobsApi } from './usajobs-api.ts';

/** The employer ATSs of issue 18, in the README's order. */
const EMPLOYER_ATS = [smartrecruiters, recruitee, workable, personio, workday] as const;

/** The public employment agencies of issue 18. */
const PUBLIC_AGENCIES = [nav, jobtech, bundesagentur, usajobsApi] as const;

/** Every built-in connector, in the order of the README, the settings and the replay routes. */
export const CONNECTORS = [ashby, greenhouse, lever, usajobs, remotive, himalayas, arbeitnow, careerSite, ...EMPLOYER_ATS, ...PUBLIC_AGENCIES] as const;

/** Provider ids of the built-in connectors; also the `source` value of the rows they produce. */
export type ConnectorId = (typeof CONNECTORS)[number]['id'];

/** {@link ConnectorId}s in registry order. */
export const CONNECTOR_IDS: readonly ConnectorId[] = CONNECTORS.map((c) => c.id);

/** Is `value` a built-in connector's id? */
export function isConnectorId(value: string): value is ConnectorId {
  return (CONNECTOR_IDS as readonly string[]).includes(value);
}

/** The descriptor of `id`, or undefined for an unknown id. */
export function connectorDescriptor(id: string): ConnectorDescriptor | undefined {
  return CONNECTORS.find((c) => c.id === id);
}

/** The module file of connector `id` under src/ingest/connectors/ (`career_site` -> `career-site.ts`). */
export function connectorModule(id: string): string {
  return `${id.replaceAll('_', '-')}.ts`;
}

/** Ids of the connectors that fetch from a configured base URL (all but career_site). */
export type BaseUrlConnectorId = Extract<(typeof CONNECTORS)[number], { baseUrl: object }>['id'];

/** A base URL per connector that has one (the config's `sources`, or the replay server's). */
export type SourceUrls = Record<BaseUrlConnectorId, string>;

/** The career-site bounds when a caller passes none: the settings' defaults (config `careerSite`). */
const CAREER_SITE_DEFAULTS: CareerSiteOptions = { maxPages: 100, delayMs: 1000 };

/**
 * Every connector keyed by its id, each fetching from its base URL in `sources`.
 * @param careerSite the career-site connector's bounds (config `careerSite`); defaults to the settings' defaults.
 * @param agencyKeys the public agencies' credentials (config `agencyKeys`); none by default.
 */
export function createConnectors(
  sources: SourceUrls,
  careerSite: CareerSiteOptions = CAREER_SITE_DEFAULTS,
  agencyKeys: ConnectorSettings['agencyKeys'] = {},
): Record<ConnectorId, Connector> {
  const urls: Partial<Record<ConnectorId, string>> = sources;
  return Object.fromEntries(CONNECTORS.map((c: ConnectorDescriptor) => [c.id, c.create(urls[c.id as ConnectorId], { careerSite, agencyKeys })])) as Record<ConnectorId, Connector>;
}

/** The configuration schema's `sources` group: one URL setting per connector with a base URL (config/config.ts). */
export function sourceSettings(): TObject<Record<BaseUrlConnectorId, ReturnType<typeof Setting.url>>> {
  const leaves = Object.fromEntries(
    CONNECTORS.flatMap((c: ConnectorDescriptor) => (c.baseUrl ? [[c.id, Setting.url(baseUrlEnv(c.id), c.baseUrl.default, c.baseUrl.description)]] : [])),
  );
  return Type.Object(leaves as Record<BaseUrlConnectorId, ReturnType<typeof Setting.url> & SettingMeta>);
}

/** One `providers` row per connector. */
export function providerRows(): ProviderInput[] {
  return CONNECTORS.map((c) => ({ id: c.id, ...c.provider }));
}

/**
 * Upsert every connector's `providers` row; run after migrating (main/runtime.ts, the tests' template),
 * so a new connector needs no migration.
 */
export async function registerProviders(db: Kysely<DB>): Promise<void> {
  await upsertProviders(db, providerRows());
}

/**
 * The quality gate's hosts of `providerId`: its ATS hosts (board in the first path segment), its agency
 * hosts, and the hosts counted as the employer's own on any path (every connector's ATS hosts when its
 * descriptor says `anyAts`, else none).
 */
export function applyHosts(providerId: string): {
  ats: readonly string[];
  atsSubdomain: readonly string[];
  atsAnyPath: readonly string[];
  agency: readonly string[];
  anyAts: readonly string[];
} {
  const hosts = connectorDescriptor(providerId)?.applyHosts;
  const anyAts = hosts?.anyAts ? CONNECTORS.flatMap((c: ConnectorDescriptor) => [...(c.applyHosts.ats ?? []), ...(c.applyHosts.atsSubdomain ?? []), ...(c.applyHosts.atsAnyPath ?? [])]) : [];
  return { ats: hosts?.ats ?? [], atsSubdomain: hosts?.atsSubdomain ?? [], atsAnyPath: hosts?.atsAnyPath ?? [], agency: hosts?.agency ?? [], anyAts };
}

/** Providers whose postings `providerId`'s postings supersede (same source posting id: a copy there). */
export function supersededProviders(providerId: string): string[] {
  return [...(connectorDescriptor(providerId)?.supersedes ?? [])];
}

/** Providers whose postings supersede `providerId`'s (a posting of `providerId` with their id is a copy). */
export function supersedingProviders(providerId: string): string[] {
  return CONNECTORS.filter((c: ConnectorDescriptor) => c.supersedes?.includes(providerId)).map((c) => c.id);
}

/** The README's connector list (Markdown table), one row per connector. */
export function connectorTable(): string {
  const rows = CONNECTORS.map((c: ConnectorDescriptor) => {
    const served = c.provider.discoveryOnly || !c.provider.redistributable ? 'no (discovery only, stored withheld)' : 'yes';
    const setting = c.baseUrl ? `\`${baseUrlEnv(c.id)}\`` : 'none (the board is a URL)';
    return `| \`${c.id}\` | ${c.provider.label} | ${c.provider.sourceType} | ${served} | ${setting} | \`src/ingest/connectors/${connectorModule(c.id)}\` |`;
  });
  return ['| id | provider | source_type | served | base URL setting | module |', '|---|---|---|---|---|---|', ...rows].join('\n') + '\n';
}
