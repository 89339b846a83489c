import { describe, expect, it } from 'vitest';
import { classifyPosterType } from './poster-type.ts';

const employer = { providerType: 'employer_ats' as const };

describe('classifyPosterType', () => {
  it('calls every row of an aggregator feed a job board', () => {
    expect(classifyPosterType({ companyName: 'TELUS Digital', providerType: 'aggregator' })).toBe('jobboard');
  });

  it('knows staffing agencies and job boards by name or domain', () => {
    expect(classifyPosterType({ companyName: 'Randstad N.V.', ...employer })).toBe('staffing');
    expect(classifyPosterType({ companyName: 'Some Name', companyDomain: 'roberthalf.com', ...employer })).toBe('staffing');
    expect(classifyPosterType({ companyName: 'Indeed', ...employer })).toBe('jobboard');
  });

  it('reads agency words in the company name', () => {
    expect(classifyPosterType({ companyName: 'Northwind Staffing', ...employer })).toBe('staffing');
    expect(classifyPosterType({ companyName: 'Blue Recruitment Ltd', ...employer })).toBe('staffing');
  });

  it.each([
    ['livinghr.json', 'Our client, a fast-growing travel and tourism startup, is hiring a Travel Planning Specialist for Custom & Group Tours'],
    ['pplwise.json', 'Für unseren Kunden - B2B SaaS Unternehmen\n\nWir bei pplwise suchen für unseren Kunden Salonkee einen Field Sales Account Exective (f/m/d).'],
    ['CultivateChain.json', "We're Hiring: Social Media Lead\n\nOur DeFi client is looking for a Social Media Lead to be the voice of our clients' brand."],
    ['truelogic.json', 'At Truelogic we are a leading provider of nearshore staff augmentation services headquartered in New York.'],
  ])('reads agency wording at the top of an advert (%s)', (_board, text) => {
    expect(classifyPosterType({ companyName: 'x', descriptionText: text, ...employer })).toBe('staffing');
  });

  it.each([
    ['eliseai.json', "SDRs have an important job - they are the first impression of EliseAI for a client's decision maker."],
    ['langchain.json', 'About the role: We are hiring for a Deployed Engineer (Strategic) to build sophisticated AI agents'],
    ['9fin.json', 'Our clients are able to make faster, more informed decisions, win more business'],
    ['bitvavo.json', 'Bitvavo does not accept resumes from staffing, search, or recruitment firms without a signed agreement.'],
  ])('does not mistake an employer describing its own clients for an agency (%s)', (_board, text) => {
    expect(classifyPosterType({ companyName: 'x', descriptionText: text, ...employer })).toBeUndefined();
  });
});
