// The /docs page's start-up (a file, not an inline script: the page's CSP allows scripts from 'self'
// only). Renders the live OpenAPI document with Scalar's standalone build, served by this server.
// "Try it" sends requests to this same origin (the document's first server).
/* global Scalar */
Scalar.createApiReference('#reference', {
  url: '/v1/openapi.json',
  // System fonts: the bundled CSS names Scalar's font CDN, which the page's CSP (font-src 'self') refuses.
  withDefaultFonts: false,
  customCss: ':root, .light-mode, .dark-mode { --scalar-font: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; --scalar-font-code: ui-monospace, "DejaVu Sans Mono", monospace; }',
  hideDownloadButton: false,
  telemetry: false,
  // Every operation visible at once; no hosted AI agent or MCP generator (they would call Scalar's services).
  defaultOpenAllTags: true,
  agent: { disabled: true },
  mcp: { disabled: true },
  showDeveloperTools: 'never',
  metaData: { title: 'jobledger API reference' },
});
