import { describe, expect, it } from 'vitest';
import { classifySeniority } from './seniority.ts';

// Titles from the recorded Ashby boards and USAJOBS announcements unless marked otherwise.
describe('classifySeniority', () => {
  it.each([
    ['Software Engineer Intern - 2027 Graduates', 'Intern'],
    ['Werkstudierende:r Data Annotation Pflegebranche (m/w/d)', 'Intern'], // voize.json
    ['Go-to-Market / Partnerships Intern (m/f/d)', 'Intern'],
    ['Student Trainee (Information Technology)', 'Intern'], // USAJOBS Pathways
    ['Praktikant (m/w/d) Marketing', 'Intern'],
    ['Stagiaire développeur', 'Intern'],
    ['Chief Financial Officer', 'Executive'],
    ['VP, Customer Success', 'Executive'],
    ['Vice President, Engineering', 'Executive'],
    ['Co-Founder & CTO', 'Executive'],
    ['Geschäftsführer (m/w/d)', 'Executive'],
    ['Director, Product Design', 'Director'],
    ['Senior Director, Clinical Success', 'Director'],
    ['Head of Growth', 'Director'],
    ['Associate Director Office of Data Services', 'Director'],
    ['Engineering Manager, Runner', 'Manager'],
    ['Store Manager - Edmonton', 'Manager'],
    ['Senior Manager, Client Services ', 'Manager'],
    ['Supervisory IT Specialist', 'Manager'],
    ['Abteilungsleiter Finanzen', 'Manager'],
    ['Responsable marketing', 'Manager'],
    ['Jefe de ventas', 'Manager'],
    ['Salgssjef', 'Manager'],
    ['Team Lead | Executive Assistant', 'Lead'],
    ['Lead Analytics Engineer', 'Lead'],
    ['Staff Software Engineer, App Foundations (Mobile)', 'Lead'],
    ['Principal Architect', 'Lead'],
    ['Materials Handler Leader', 'Lead'],
    ['Teamleiter Vertrieb (m/w/d)', 'Lead'],
    ['Senior Software Engineer, Money', 'Senior'],
    ['Sr. Product Marketing Manager - New Products', 'Senior'],
    ['Senior Product Manager', 'Senior'],
    ['Software Engineer III', 'Senior'],
    ['Erfaren frontendutvikler', 'Senior'], // NAV feed
    ['Software Engineer II - Practice Engagement (Brazil)', 'Mid'],
    ['Mid-Level Backend Engineer', 'Mid'],
    ['Medior Developer', 'Mid'],
    ['Talent Acquisition Junior ', 'Entry'],
    ['Admin Executive (Fresh Graduate)', 'Entry'],
    ['Analyst I, Mission Control', 'Entry'],
    ['Associate Account Executive', 'Entry'],
    ['Associate Product Manager', 'Entry'],
    ['Police Officer (Entry-Level)', 'Entry'],
    ['Statistician GS-1530-13, FPL 13 (Direct Hire) (Remote Eligible)', 'Senior'],
    ['Education Research Analyst, GS-1730-12/13 (FPL GS-13) (DE) (Remote Eligible)', 'Mid'],
    ['Training Technician GS-1702-09 (FPL 09)(MP)', 'Mid'],
  ])('%s → %s', (title, expected) => {
    expect(classifySeniority(title)).toBe(expected);
  });

  it.each([
    'Software Engineer',
    'Product Manager',
    'Customer Success Manager',
    'Account Executive',
    'Executive Assistant',
    'Chief of Staff',
    'Sales Associate',
    'Operations Associate, Accounts',
    'Staff Accountant',
    'Accountant (Staff)',
    'Data Entry Clerk',
    'Lead Generation Specialist',
    'Founding Engineer',
    'Chef de projet',
    'Presidential Management Fellow',
    'Budget Analyst',
    '',
  ])('%j states no level', (title) => {
    expect(classifySeniority(title)).toBeUndefined();
  });

  it('gives a stated level precedence over a federal grade', () => {
    expect(classifySeniority('Supervisory Procurement Analyst, GS-1102-15, FPL 15, (Direct Hire)(Remote Eligible)')).toBe('Manager');
  });
});
