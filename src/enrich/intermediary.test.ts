import { describe, expect, it } from 'vitest';
import { judgeBoard, type BoardPosting } from './intermediary.ts';

const row = (title: string, text: string, extra: Partial<BoardPosting> = {}): BoardPosting => ({ title, companyName: 'Northstar Ventures', descriptionText: text, ...extra });

describe('judgeBoard', () => {
  it('judges a recruitment agency board by its client wording, own roles included', () => {
    const agency = [
      row('Backend Engineer', 'Our client, a fast-growing fintech company, is hiring a Backend Engineer to join its platform team.', { companyName: 'TalentBridge' }),
      row('Data Analyst', 'On behalf of our client, a leading retailer, we are looking for a Data Analyst.', { companyName: 'TalentBridge' }),
      row('Account Manager', 'TalentBridge is growing its own sales team. You will manage our relationships.', { companyName: 'TalentBridge' }),
    ];
    expect(judgeBoard(agency)).toMatchObject({ ruleId: 'poster.board_client_wording', posterType: 'staffing', postings: 3, matched: 2 });
  });

  it('reads client departments ("Client Opportunities") as client roles', () => {
    const board = [
      row('Travel Consultant', 'A tourism startup needs you.', { department: 'Client Opportunities' }),
      row('Product Designer', 'A design-led company needs you.', { department: 'Client Opportunities' }),
      row('Recruiter', 'Join our own team.', { department: 'Internal' }),
    ];
    expect(judgeBoard(board)?.ruleId).toBe('poster.board_client_wording');
  });

  it('judges a venture portfolio board by portfolio wording', () => {
    const board = [
      row('Founding Engineer', 'One of our portfolio companies is hiring a founding engineer in Berlin.'),
      row('Head of Sales', 'This role is at one of our portfolio companies, a B2B SaaS startup.'),
      row('Investment Associate', 'Join the Northstar investment team.'),
    ];
    expect(judgeBoard(board)).toMatchObject({ ruleId: 'poster.board_portfolio', posterType: 'jobboard', matched: 2 });
  });

  it('judges a board naming many other employers in title prefixes, suffixes and departments', () => {
    const board = [
      row('Acme Robotics - Firmware Engineer', 'About Acme Robotics\nWe build warehouse robots.'),
      row('Product Designer at Globex', 'At Globex, we design tools for accountants.'),
      row('Sales Lead', 'Initech is a payments company serving 2,000 merchants.', { department: 'Initech' }),
      row('Office Manager', 'Help the Northstar team run its office.'),
    ];
    const found = judgeBoard(board);
    expect(found).toMatchObject({ ruleId: 'poster.board_many_employers', posterType: 'jobboard', postings: 4, matched: 3 });
    expect(found?.hiringCompanies).toEqual(['Acme Robotics', 'Globex', 'Initech']);
  });

  it('leaves an employer board alone: departments are functions, not companies', () => {
    const board = [
      row('Backend Engineer', 'About us: Northstar builds analytics. Our clients love it.', { department: 'Engineering', companyName: 'Northstar' }),
      row('Account Executive', 'Engineering and Sales work closely at Northstar.', { department: 'Sales', companyName: 'Northstar' }),
      row('Support Specialist', 'Customer Support is the heart of Northstar.', { department: 'Customer Support', companyName: 'Northstar' }),
    ];
    expect(judgeBoard(board)).toBeUndefined();
  });

  it("does not take a studio's own brands for clients", () => {
    const board = [
      row('BeReal - iOS Engineer', 'About BeReal\nBeReal, a Voodoo company, is the photo app.', { companyName: 'Voodoo' }),
      row('Wizz - Product Manager', 'About Wizz\nWizz is part of Voodoo since 2023.', { companyName: 'Voodoo' }),
      row('Paper - Game Designer', 'About Paper\nVoodoo acquired the studio behind Paper in 2020.', { companyName: 'Voodoo' }),
    ];
    expect(judgeBoard(board)).toBeUndefined();
  });

  it('needs more than one posting of evidence: a single client advert is not a board-level finding', () => {
    const board = [row('Engineer', 'Our client, a bank, is hiring.'), ...Array.from({ length: 5 }, (_, i) => row(`Analyst ${i}`, 'Join Northstar.'))];
    expect(judgeBoard(board)).toBeUndefined();
  });
});
