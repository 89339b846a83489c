-- Company career pages as a source (issue 17; spec: "Every listing comes from an employer
-- applicant-tracking system, a company's own careers page, ..."): the provider `career_site`, of class
-- `direct` and row-level source_type `career_site`, and what its connector remembers between crawls.

INSERT INTO providers (id, label, provider_class, source_type) VALUES
  ('career_site', 'Company career pages', 'direct', 'career_site')
ON CONFLICT (id) DO NOTHING;

-- A site is many documents (robots.txt, sitemaps, the careers page, one page per posting), each with
-- its own validators. The career-site connector keeps, per document URL, its ETag/Last-Modified and
-- what it read from it (robots text, sitemap entries, links, the JobPostings of a page), so a recrawl
-- asks each document conditionally and a 304 still yields its postings. Opaque to everything but the
-- connector; NULL for single-document boards. Cleared with the validators (`ingest --refetch`).
ALTER TABLE crawl_targets ADD COLUMN site_state jsonb;
