/**
 * The built-in connectors, one per provider id, wired to the configured upstream base URLs
 * (config `sources`; the demo passes the replay server's `baseUrls` instead).
 */
import type { SourceBaseUrls } from '../../config/config.ts';
import type { Connector, ConnectorId } from '../connector.ts';
import { createArbeitnowConnector } from './arbeitnow.ts';
import { createAshbyConnector } from './ashby.ts';
import { createGreenhouseConnector } from './greenhouse.ts';
import { createHimalayasConnector } from './himalayas.ts';
import { createLeverConnector } from './lever.ts';
import { createRemotiveConnector } from './remotive.ts';
import { createUsajobsConnector } from './usajobs.ts';

/** Every connector keyed by its provider id. */
export function createConnectors(sources: SourceBaseUrls): Record<ConnectorId, Connector> {
  return {
    ashby: createAshbyConnector(sources.ashby),
    greenhouse: createGreenhouseConnector(sources.greenhouse),
    lever: createLeverConnector(sources.lever),
    usajobs: createUsajobsConnector(sources.usajobs),
    remotive: createRemotiveConnector(sources.remotive),
    himalayas: createHimalayasConnector(sources.himalayas),
    arbeitnow: createArbeitnowConnector(sources.arbeitnow),
  };
}
