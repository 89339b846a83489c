/**
 * The built-in connectors, one per provider id, wired to the configured upstream base URLs
 * (config `sources`; the demo passes the replay server's `baseUrls` instead).
 */
import type { CareerSiteConfig, SourceBaseUrls } from '../../config/config.ts';
import type { Connector, ConnectorId } from '../connector.ts';
import { createArbeitnowConnector } from './arbeitnow.ts';
import { createAshbyConnector } from './ashby.ts';
import { createCareerSiteConnector } from './career-site.ts';
import { createGreenhouseConnector } from './greenhouse.ts';
import { createHimalayasConnector } from './himalayas.ts';
import { createLeverConnector } from './lever.ts';
import { createRemotiveConnector } from './remotive.ts';
import { createUsajobsConnector } from './usajobs.ts';

/** Default career-site bounds when a caller passes none (the settings' defaults). */
const CAREER_SITE_DEFAULTS: CareerSiteConfig = { maxPages: 100, delayMs: 1000 };

/**
 * Every connector keyed by its provider id.
 * @param careerSite the career-site connector's bounds (config `careerSite`); defaults to the settings' defaults.
 */
export function createConnectors(sources: SourceBaseUrls, careerSite: CareerSiteConfig = CAREER_SITE_DEFAULTS): Record<ConnectorId, Connector> {
  return {
    ashby: createAshbyConnector(sources.ashby),
    greenhouse: createGreenhouseConnector(sources.greenhouse),
    lever: createLeverConnector(sources.lever),
    usajobs: createUsajobsConnector(sources.usajobs),
    remotive: createRemotiveConnector(sources.remotive),
    himalayas: createHimalayasConnector(sources.himalayas),
    arbeitnow: createArbeitnowConnector(sources.arbeitnow),
    career_site: createCareerSiteConnector(careerSite),
  };
}
