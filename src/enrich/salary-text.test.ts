import { describe, expect, it } from 'vitest';
import { parseAmount, parseSalaryFromText } from './salary-text.ts';

// Pay statements copied from the recorded Ashby boards (/work/shared/data/ashby/boards.tar.gz,
// `descriptionPlain`); the board each comes from is named in the test.
describe('parseSalaryFromText: what real adverts state', () => {
  it.each([
    ['acorns', 'The pay range for this position at commencement of employment is expected to be between $210,000 and $225,000/year; however, base pay offered may vary', 'US', { min: 210000, max: 225000, currency: 'USD', period: 'annual' }],
    ['Ridealso', 'The hourly rate for this position ranges from $50.00 - $63.00 per hour, depending on experience and qualifications', 'US', { min: 50, max: 63, currency: 'USD', period: 'hourly' }],
    ['Juicebox', 'Compensation: $130-$180K base salary, based on experience. Commission on top for OTE of $140 - $220K. Generous benefits, including medical, dental, and vision.', 'US', { min: 130000, max: 180000, currency: 'USD', period: 'annual' }],
    ['alan', 'Rémunération : 35 000,00€ à 50 000,00€ par an', 'FR', { min: 35000, max: 50000, currency: 'EUR', period: 'annual' }],
    ['pplwise', 'Vergütung: EUR 90.000 und EUR 110.000 Bruttojahresgehalt + Benefits', 'DE', { min: 90000, max: 110000, currency: 'EUR', period: 'annual' }],
    ['myedspacecareers', '- Salary: £45-£60k pa', 'GB', { min: 45000, max: 60000, currency: 'GBP', period: 'annual' }],
    ['sardine', 'Compensation: Base pay range of R$265,000- R$370,000 BRL + Series C equity with tremendous upside potential', 'BR', { min: 265000, max: 370000, currency: 'BRL', period: 'annual' }],
    ['prorata', 'The estimated salary range for this role is 180,000 - 230,000 USD.', 'US', { min: 180000, max: 230000, currency: 'USD', period: 'annual' }],
    ['brainly', 'SALARY: $ 55, 000 - $ 65, 000', 'US', { min: 55000, max: 65000, currency: 'USD', period: 'annual' }],
    ['SecondDinner', 'Compensation: $45/HR - $50/HR', 'US', { min: 45, max: 50, currency: 'USD', period: 'hourly' }],
    ['procurify', '- Base Salary Range: $103,000 - $129,000 CAD (This range is dependent on experience)', 'CA', { min: 103000, max: 129000, currency: 'CAD', period: 'annual' }],
    ['procurify (bare $ in Canada)', '- Base Salary Range: $122,000 - $152,000 (This range is dependent on experience)', 'CA', { min: 122000, max: 152000, currency: 'CAD', period: 'annual' }],
    ['quora', '- The minimum base salary range for this role starts at $8,033 CAD monthly.', 'CA', { min: 8033, currency: 'CAD', period: 'monthly' }],
    ['eliseai', 'The salary range for this role is $80,000 (OTE $160,000). EliseAI offers a competitive total rewards package', 'US', { min: 80000, max: 80000, currency: 'USD', period: 'annual' }],
    ['hadrian-automation', 'Every Factory Technician starts at $20 per hour regardless of experience.', 'US', { min: 20, currency: 'USD', period: 'hourly' }],
  ])('%s', (_board, text, country, expected) => {
    expect(parseSalaryFromText(text, { country })).toEqual(expected);
  });

  it('reads a heading as the pay wording of the line under it (harvey)', () => {
    expect(parseSalaryFromText('Compensation Range\n$220,000 - $280,000 USD', { country: 'US' })).toEqual({ min: 220000, max: 280000, currency: 'USD', period: 'annual' });
  });
});

describe('parseSalaryFromText: abstains rather than guess', () => {
  it('publishes nothing when the advert gives one range per country (1password)', () => {
    const text = [
      'USA-based roles only: The annual base salary for this role is between $123,000 USD and $167,000 USD plus immediate participation in benefits.',
      'Canada-based roles only: The annual base salary for this role is between $111,000 CAD and $150,000 CAD, plus immediate participation in benefits.',
    ].join('\n');
    expect(parseSalaryFromText(text, {})).toBeUndefined();
  });

  it('publishes nothing when one range is given per state group (ClassDojo)', () => {
    const text = 'Salary ranges (United States):\nCA, WA, NY, NJ, CT states: $188,000 - $222,000 (USD)\nAll other states in the US: $160,000 - $188,500 (USD)';
    expect(parseSalaryFromText(text, { country: 'US' })).toBeUndefined();
  });

  it('publishes nothing for a malformed number (basis-ai "$100,0000 - $200,000")', () => {
    expect(parseSalaryFromText('In accordance with New York State regulations, the salary range for this position is $100,0000 - $200,000.', { country: 'US' })).toBeUndefined();
  });

  it('publishes nothing for a bare $ when the posting has no single country (rain, "Latin America")', () => {
    expect(parseSalaryFromText('Compensation will vary based on experience from $50,000-$155,000', {})).toBeUndefined();
  });

  it.each([
    ['Commure-Athelas', 'Healthcare is a $4.5 trillion industry with more than $500 billion spent annually on administrative costs'],
    ['Diagrid', '- $1000 for home office setup'],
    ['bree', '- $1,500 annual learning stipend'],
    ['kin', 'In addition to base salary, we are also offering a $1000 retention bonus (payable at 6 months)'],
    ['n8n', "- Giving back – We're big fans of open source, and you'll get $100 per month to support projects you care about."],
    ['ramp', '- Fertility HRA (up to $5,000 per year)'],
    ['tandem-health', '- 5,000 SEK wellness allowance (friskvårdsbidrag)'],
  ])('finds no pay in money that is not pay (%s)', (_board, text) => {
    expect(parseSalaryFromText(text, { country: 'US' })).toBeUndefined();
  });

  it('never publishes a monthly-looking figure without a period (a German "Gehalt: 4.500 €")', () => {
    // Hand-written: under 10,000 with no period stated, the figure could be monthly or annual.
    expect(parseSalaryFromText('Gehalt: 4.500 €', { country: 'DE' })).toBeUndefined();
  });
});

describe('parseAmount', () => {
  it.each([
    ['120,000', 120000],
    ['120.000', 120000],
    ['120 000', 120000],
    ["120'000", 120000],
    ['35 000,00', 35000],
    ['18.00', 18],
    ['1,234.50', 1234.5],
  ])('%s → %d', (raw, value) => {
    expect(parseAmount(raw)).toBe(value);
  });

  it.each(['100,0000', '1,23,000', '1.234,567', '12345678901'])('refuses %s', (raw) => {
    expect(() => parseAmount(raw)).toThrow();
  });
});

// Issue #15 class 1: the templates that broke the parser on unfamiliar employers. Hand-written in the
// shape of the failing adverts (a company footer with a per-month stipend beside a plain pay sentence).
describe('parseSalaryFromText: other money near the pay sentence', () => {
  const footer = 'Perks: a commuter and transit stipend of $150 per month, paid on your payroll.';

  it('does not publish a per-month transit stipend as the salary', () => {
    expect(parseSalaryFromText(`We are a great team.\n${footer}`, { country: 'US' })).toBeUndefined();
  });

  it('reads the pay sentence despite a stipend footer', () => {
    const text = `About the role.\nThe pay range for this position is $120,000 - $150,000 per year.\n${footer}`;
    expect(parseSalaryFromText(text, { country: 'US' })).toEqual({ min: 120000, max: 150000, currency: 'USD', period: 'annual' });
  });

  it.each([
    ['relocation', 'We offer a relocation package of $10,000 paid with your first salary.'],
    ['sign-on bonus', 'This role comes with a $5,000 sign-on bonus paid with your first paycheck.'],
    ['referral bonus', 'Refer a friend: our referral bonus pays $2,000 per hire.'],
    ['equity', 'Compensation also includes equity worth $40,000 per year at the last valuation.'],
    ['quota', 'Our account executives carry an annual quota of $900,000 in new bookings.'],
    ['allowance', 'You will receive a monthly home office allowance of €100 per month with your pay.'],
    ['up to', 'Earn up to $90,000 per year with commissions.'],
  ])('finds no salary in a %s line', (_kind, line) => {
    expect(parseSalaryFromText(line, { country: 'US' })).toBeUndefined();
  });

  it('prefers the base salary sentence to a figure that is only near a pay word', () => {
    const text = 'Base salary: €55,000 - €65,000 per year.\nWe pay €1,200 per month for your rent in the first quarter, depending on the city.';
    expect(parseSalaryFromText(text, { country: 'DE' })).toEqual({ min: 55000, max: 65000, currency: 'EUR', period: 'annual' });
  });

  it('reads a bare range in thousands ("€55k–€65k") as an annual salary band', () => {
    expect(parseSalaryFromText('Senior Backend Engineer (Berlin)\n€55k–€65k', { country: 'DE' })).toEqual({ min: 55000, max: 65000, currency: 'EUR', period: 'annual' });
  });
});

describe('parseSalaryFromText: malformed ranges', () => {
  it('reads "$95,00 - $120,000" as its author meant', () => {
    expect(parseSalaryFromText('The base salary range for this role is $95,00 - $120,000.', { country: 'US' })).toEqual({ min: 95000, max: 120000, currency: 'USD', period: 'annual' });
  });

  it.each([
    ['reversed', 'The salary range for this role is $120,000 - $95,000.'],
    ['an end a hundred times the other', 'The salary range for this role is $1,000 - $150,000.'],
  ])('publishes nothing for a %s range, not even another figure', (_kind, line) => {
    expect(parseSalaryFromText(`${line}\nOTE: $200,000 per year.`, { country: 'US' })).toBeUndefined();
  });
});

describe('parseSalaryFromText: a bare $ without a country', () => {
  const line = 'The salary range for this role is $100,000 - $130,000.';

  it('resolves it from a currency code the advert states elsewhere', () => {
    expect(parseSalaryFromText(`${line}\nAll amounts are in USD.`, {})).toEqual({ min: 100000, max: 130000, currency: 'USD', period: 'annual' });
  });

  it('resolves it from the board when the advert names no dollar', () => {
    expect(parseSalaryFromText(line, { boardDollar: 'CAD' })).toEqual({ min: 100000, max: 130000, currency: 'CAD', period: 'annual' });
  });

  it('leaves it out when the advert names two dollars, whatever the board says', () => {
    expect(parseSalaryFromText(`${line}\nWe hire in USD and CAD.`, { boardDollar: 'USD' })).toBeUndefined();
  });

  it('leaves it out when nothing settles it', () => {
    expect(parseSalaryFromText(line, {})).toBeUndefined();
  });
});

it('reads the hourly pay of a sentence that names bonuses after a "plus" (neofinancial)', () => {
  const text = ' * We pay $20.00 an hour, plus commission that is paid instantly at the point of sale, and additional performance bonuses.\n * The average on-target wage of our Sales Representatives is $36/hour.';
  expect(parseSalaryFromText(text, { country: 'CA' })).toEqual({ min: 20, max: 20, currency: 'CAD', period: 'hourly' });
});

describe('benefit list items (issue 15 class 1, the held-out mazedesign failure)', () => {
  // The shape of a real benefits list: a "Paid ..." item right above a monthly insurance contribution.
  const benefits = ' * Company retreats, fully paid for by the company\n * Paid Family leave: 16 weeks for birth or adoptive parents\n * $500/month to be used for dependent health insurance coverage\n * $1,500 remote work setup fund';

  it('does not take a list item saying "paid" as a pay heading, nor an insurance contribution as pay', () => {
    expect(parseSalaryFromText(benefits, { country: 'US' })).toBeUndefined();
  });

  it('still reads the pay range stated beside such a list', () => {
    expect(parseSalaryFromText(`The base salary range for this role is $120,000 - $150,000.\n${benefits}`, { country: 'US' })).toEqual({ min: 120000, max: 150000, currency: 'USD', period: 'annual' });
  });

  it('still reads figures under a real heading', () => {
    expect(parseSalaryFromText('Salary\n$80,000 - $95,000 per year', { country: 'US' })).toEqual({ min: 80000, max: 95000, currency: 'USD', period: 'annual' });
  });
});
