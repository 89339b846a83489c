/**
 * Company ids stay stable when identity keys became registrable domains (issue #15 class 6): a row
 * keyed by a whole host before the change is found and re-keyed, not duplicated.
 */
import { describe, expect, it } from 'vitest';
import { resolveCompany } from '../src/store/companies.ts';
import { useTestDatabase } from './helpers/database.ts';

describe('company identity by registrable domain', () => {
  const t = useTestDatabase();

  it('keys a new company by its registrable domain and stores that domain', async () => {
    const ref = await resolveCompany(t.db, { name: 'Acme Widgets', domain: 'careers.acmewidgets.co.uk' });
    const row = await t.db.selectFrom('companies').select(['identity_key', 'domain']).where('id', '=', ref.id).executeTakeFirstOrThrow();
    expect(row).toEqual({ identity_key: 'domain:acmewidgets.co.uk', domain: 'acmewidgets.co.uk' });
    expect((await resolveCompany(t.db, { name: 'Acme Widgets', domain: 'https://www.acmewidgets.co.uk/' })).id).toBe(ref.id);
  });

  it('keeps the id and slug of a row keyed by a whole host before the change', async () => {
    const legacy = await t.db
      .insertInto('companies')
      .values({ slug: 'globex', name: 'Globex', identity_key: 'domain:jobs.globex.com.au', domain: 'jobs.globex.com.au' })
      .returning(['id'])
      .executeTakeFirstOrThrow();
    const ref = await resolveCompany(t.db, { name: 'Globex', domain: 'jobs.globex.com.au' });
    expect(ref).toMatchObject({ id: legacy.id, slug: 'globex' });
    const rows = await t.db.selectFrom('companies').select(['id', 'identity_key', 'domain']).where('name', '=', 'Globex').execute();
    expect(rows).toEqual([{ id: legacy.id, identity_key: 'domain:globex.com.au', domain: 'globex.com.au' }]);
  });
});
