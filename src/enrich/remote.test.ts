import { describe, expect, it } from 'vitest';
import { resolveRemote, workplaceFromAdvert } from './remote.ts';

describe('resolveRemote', () => {
  it('publishes the source flag as given', () => {
    // ramp.json "Customer Experience Agent": isRemote true, "New York, NY (HQ)"
    expect(resolveRemote({ flag: 'remote', texts: ['Customer Experience Agent', 'New York, NY (HQ)'] })).toEqual({ remote: 'remote', remoteInferred: false, provenance: 'published' });
    // bjakcareer.json: isRemote false → on_site from the connector
    expect(resolveRemote({ flag: 'on_site', texts: ['Talent Acquisition Executive (Fresh Grad, RM3500- RM6000)', 'Malaysia'] })).toEqual({
      remote: 'on_site',
      remoteInferred: false,
      provenance: 'published',
    });
  });

  it('refines a boolean flag to hybrid when the posting itself says hybrid', () => {
    // Abridge.json: isRemote true on "San Francisco-Hybrid"; neofinancial-style "Hybrid in Toronto" with isRemote false
    expect(resolveRemote({ flag: 'remote', texts: ['Senior Operations Manager', 'San Francisco-Hybrid'] })).toEqual({ remote: 'hybrid', remoteInferred: true, provenance: 'inferred' });
    expect(resolveRemote({ flag: 'on_site', texts: ['Software Engineer', 'Hybrid in Toronto'] })).toEqual({ remote: 'hybrid', remoteInferred: true, provenance: 'inferred' });
    // replit.json: hybrid with in-office days is hybrid
    expect(resolveRemote({ flag: 'on_site', texts: ['Engineer', 'Foster City, CA (Hybrid) In office M,W,F'] })).toEqual({ remote: 'hybrid', remoteInferred: true, provenance: 'inferred' });
  });

  it('corrects an on_site flag when the primary location clearly says remote (cargo-one.json "Remote (EMEA)", isRemote false)', () => {
    expect(resolveRemote({ flag: 'on_site', texts: ['Senior Backend Engineer', 'Remote (EMEA)'] })).toEqual({ remote: 'remote', remoteInferred: true, provenance: 'inferred' });
  });

  it('does not let one remote alternative among secondary locations overrule a flag', () => {
    expect(resolveRemote({ flag: 'on_site', texts: ['Account Executive', 'New York'], secondaryTexts: ['Remote'] })).toEqual({
      remote: 'on_site',
      remoteInferred: false,
      provenance: 'published',
    });
  });

  it('infers from the texts when the source has no flag', () => {
    // 1password.json "Developer, Backend": isRemote null, "Remote (United States | Canada)"
    expect(resolveRemote({ texts: ['Developer, Backend', 'Remote (United States | Canada)'] })).toEqual({ remote: 'remote', remoteInferred: true, provenance: 'inferred' });
    expect(resolveRemote({ texts: ['Senior Software Engineer I/II (Hybrid)', 'Toronto'] })).toMatchObject({ remote: 'hybrid', remoteInferred: true });
    expect(resolveRemote({ texts: ['Engineer', 'London - On-site'] })).toMatchObject({ remote: 'on_site', remoteInferred: true });
    expect(resolveRemote({ texts: ['Engineer', 'Berlin'], secondaryTexts: ['Remote - Germany'] })).toMatchObject({ remote: 'remote' });
  });

  it('reads the non-English cues', () => {
    expect(resolveRemote({ texts: ['Werkstudent (m/w/d)', 'Berlin, Homeoffice möglich'] }).remote).toBe('remote');
    expect(resolveRemote({ texts: ['Développeur', 'Paris - Télétravail'] }).remote).toBe('remote');
    expect(resolveRemote({ texts: ['Ontwikkelaar', 'Utrecht (thuiswerken)'] }).remote).toBe('remote');
    expect(resolveRemote({ texts: ['Desarrollador', 'Remoto'] }).remote).toBe('remote');
    expect(resolveRemote({ texts: ['Utvecklare', 'Stockholm, på distans'] }).remote).toBe('remote');
    expect(resolveRemote({ texts: ['Utvikler', 'Oslo, hjemmekontor'] }).remote).toBe('remote');
    expect(resolveRemote({ texts: ['Desarrollador', 'Madrid (híbrido)'] }).remote).toBe('hybrid');
    expect(resolveRemote({ texts: ['Mitarbeiter', 'Hamburg, vor Ort'] }).remote).toBe('on_site');
  });

  it('is conservative about "remote" that is not about where the work is done', () => {
    expect(resolveRemote({ texts: ['Remote Sensing Scientist', 'Denver'] })).toEqual({ remoteInferred: false, provenance: 'absent' });
    expect(resolveRemote({ texts: ['Drone Remote Pilot', 'Austin, TX'] })).toEqual({ remoteInferred: false, provenance: 'absent' });
    expect(resolveRemote({ texts: ['Remote Patient Monitoring Nurse', 'Chicago, IL'] })).toEqual({ remoteInferred: false, provenance: 'absent' });
    expect(resolveRemote({ texts: ['Account Executive', 'RemoteCo HQ'] })).toEqual({ remoteInferred: false, provenance: 'absent' });
    expect(resolveRemote({ texts: ['Engineer (not remote)', 'Boston'] }).remote).toBe('on_site');
  });

  it('infers nothing from conflicting remote and on-site cues', () => {
    expect(resolveRemote({ texts: ['Engineer', 'Las Vegas, NV (Onsite)'], secondaryTexts: ['Las Vegas, NV (Remote)'] })).toEqual({ remoteInferred: false, provenance: 'absent' });
  });

  it('is absent when nothing is said', () => {
    expect(resolveRemote({ texts: ['Backend Engineer', 'Singapore'] })).toEqual({ remoteInferred: false, provenance: 'absent' });
    expect(resolveRemote({ texts: [] })).toEqual({ remoteInferred: false, provenance: 'absent' });
  });
});

// Issue #15 class 3: a flag that says only "not fully remote" (Ashby isRemote false).
describe('resolveRemote under a "not remote" flag', () => {
  it('never publishes on_site from the flag alone', () => {
    expect(resolveRemote({ flag: 'not_remote', texts: ['Account Executive', 'New York'] })).toEqual({ remoteInferred: false, provenance: 'absent' });
  });

  it('reads hybrid from the advert text, as inferred', () => {
    const advertText = 'About the role\nThis is a hybrid role: you will work from our Berlin office three days a week.';
    expect(resolveRemote({ flag: 'not_remote', texts: ['Account Executive', 'Berlin'], advertText })).toEqual({ remote: 'hybrid', remoteInferred: true, provenance: 'inferred' });
    expect(resolveRemote({ flag: 'not_remote', texts: ['Engineer', 'London'], advertText: 'We work 2 days per week in the office.' }).remote).toBe('hybrid');
  });

  it('publishes on_site only when the text states on-site', () => {
    expect(resolveRemote({ flag: 'not_remote', texts: ['Technician', 'Austin, TX'], advertText: 'This role is fully on-site at our Austin plant.' })).toEqual({ remote: 'on_site', remoteInferred: true, provenance: 'inferred' });
    expect(resolveRemote({ flag: 'not_remote', texts: ['Engineer', 'London - On-site'] })).toMatchObject({ remote: 'on_site', provenance: 'inferred' });
    // A perk is not the workplace.
    expect(resolveRemote({ flag: 'not_remote', texts: ['Engineer', 'Austin, TX'], advertText: 'Free on-site gym and in-person events every quarter.' }).remote).toBeUndefined();
  });

  it('rules out remote even where a location says remote', () => {
    expect(resolveRemote({ flag: 'not_remote', texts: ['Engineer', 'Remote (EMEA)'] }).remote).toBeUndefined();
    expect(resolveRemote({ flag: 'not_remote', texts: ['Engineer', 'Remote (EMEA)'], advertText: 'Remote-friendly: two days a week in the office.' }).remote).toBe('hybrid');
  });
});

describe('workplaceFromAdvert', () => {
  it.each([
    ['Hybrid (3 days in office)', 'hybrid'],
    ['You will be in the office 4 days per week.', 'hybrid'],
    ['This position is in-person at our San Francisco headquarters.', 'on_site'],
    ['This is an on-site role.', 'on_site'],
    ['Please note this is not a remote position.', 'on_site'],
    ['We offer lunch, an on-site gym and remote sensing data.', undefined],
  ] as const)('%s → %s', (text, mode) => {
    expect(workplaceFromAdvert(text)).toBe(mode);
  });
});

// Issue #15 class 3, the other half: Ashby's `isRemote: true` is set on hybrid postings too.
describe('a remote_or_hybrid flag (Ashby isRemote: true)', () => {
  it('is remote, published, when the texts say nothing else', () => {
    expect(resolveRemote({ flag: 'remote_or_hybrid', texts: ['Engineer', 'Remote - US'] })).toEqual({ remote: 'remote', remoteInferred: false, provenance: 'published' });
    expect(resolveRemote({ flag: 'remote_or_hybrid', texts: ['Engineer', 'Berlin'], advertText: 'We build tools.' })).toEqual({ remote: 'remote', remoteInferred: false, provenance: 'published' });
  });

  it('is hybrid, inferred, when the advert states office days (voodoo)', () => {
    const advertText = 'This position is hybrid and requires 3 days per week in the office based in Paris.';
    expect(resolveRemote({ flag: 'remote_or_hybrid', texts: ['Junior Data Scientist', 'Paris'], advertText })).toEqual({ remote: 'hybrid', remoteInferred: true, provenance: 'inferred' });
  });

  it('keeps remote when the location says remote, whatever the perks say', () => {
    expect(resolveRemote({ flag: 'remote_or_hybrid', texts: ['Engineer', 'Remote (US)'], advertText: 'Flexible hybrid options for those near an office.' }).remote).toBe('remote');
  });

  it('publishes nothing when the advert says on-site every day (dandy)', () => {
    expect(resolveRemote({ flag: 'remote_or_hybrid', texts: ['System Administrator', 'Johannesburg'], advertText: ' - On-site office support required everyday' })).toEqual({ remoteInferred: false, provenance: 'absent' });
  });
});

describe('advert wording that is not a workplace statement', () => {
  it('ignores a list of the modes a company has (uipath)', () => {
    expect(workplaceFromAdvert('Depending on the needs of the business and the role, the number of hybrid, office-based, and remote workers will vary from team to team.')).toBeUndefined();
  });

  it('ignores "hybrid" about the duties (acquisition)', () => {
    expect(workplaceFromAdvert('This hybrid role combines high-touch personal assistance with household operations.')).toBeUndefined();
  });

  it('ignores what the footer says about other roles at the company (1password)', () => {
    const footer =
      'Some roles are designated as remote-first, with an expectation that individuals work from home. *Some roles in our GTM team are currently being hired for in-person hybrid work in Toronto and Austin. These roles will specify this in the job description.';
    expect(workplaceFromAdvert(footer)).toBeUndefined();
    expect(resolveRemote({ flag: 'not_remote', texts: ['Senior Customer Success Manager, Enterprise', 'United States | Canada'], advertText: footer })).toEqual({ remoteInferred: false, provenance: 'absent' });
    // The job's own sentence still counts beside that footer.
    expect(workplaceFromAdvert(`This role is hybrid, three days a week in our Toronto office. ${footer}`)).toBe('hybrid');
  });
});

describe('office days and remote statements in the advert', () => {
  it('reads five office days as on-site, fewer as hybrid', () => {
    expect(workplaceFromAdvert('Fully present — we are 5 days a week in the office.')).toBe('on_site');
    expect(workplaceFromAdvert('This role requires presence in our San Jose office location 4 days per week.')).toBe('hybrid');
    expect(workplaceFromAdvert('This role is based in San Francisco with Tuesday, Wednesday, and Thursday required in office.')).toBe('hybrid');
  });

  it('does not read "hybrid" about technology or a mix of duties', () => {
    expect(workplaceFromAdvert('APIs that follow an Onion/Hexagonal hybrid architecture.')).toBeUndefined();
    expect(workplaceFromAdvert('This is a hybrid role: part data engineer, part analytics engineer.')).toBeUndefined();
  });

  it('does not read "remote-friendly" as hybrid when the advert says remote-first', () => {
    expect(workplaceFromAdvert('Work your way: remote-friendly, flexible hours. Remote first - work from anywhere in the world.')).toBeUndefined();
    expect(workplaceFromAdvert('We are a remote-friendly team with an office in Paris.')).toBe('hybrid');
  });
});
