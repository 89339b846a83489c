import { describe, expect, it } from 'vitest';
import { AED_PER_USD, loadFxRates, parseEcbXml, ratesAgeDays, ratesFromEcbDays } from './fx.ts';

/** The ECB's documented eurofxref-daily.xml shape (two days, as in eurofxref-hist-90d.xml), written for this test. */
const XML = `<?xml version="1.0" encoding="UTF-8"?>
<gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01" xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref">
\t<gesmes:subject>Reference rates</gesmes:subject>
\t<gesmes:Sender><gesmes:name>European Central Bank</gesmes:name></gesmes:Sender>
\t<Cube>
\t\t<Cube time='2026-11-24'>
\t\t\t<Cube currency='USD' rate='1.0500'/>
\t\t\t<Cube currency='GBP' rate='0.8400'/>
\t\t\t<Cube currency='ISK' rate='150.10'/>
\t\t</Cube>
\t\t<Cube time='2026-11-23'>
\t\t\t<Cube currency='USD' rate='1.0400'/>
\t\t\t<Cube currency='JPY' rate='160.5'/>
\t\t\t<Cube currency='CHF' rate='N/A'/>
\t\t</Cube>
\t</Cube>
</gesmes:Envelope>`;

describe('parseEcbXml', () => {
  it('reads every dated Cube, ascending, skipping rates that are not numbers', () => {
    expect(parseEcbXml(XML)).toEqual([
      { date: '2026-11-23', unitsPerEur: { USD: 1.04, JPY: 160.5 } },
      { date: '2026-11-24', unitsPerEur: { USD: 1.05, GBP: 0.84, ISK: 150.1 } },
    ]);
  });

  it('refuses a document without rates (an error page, a changed format)', () => {
    expect(() => parseEcbXml('<html><body>Service unavailable</body></html>')).toThrow(/no dated rates/);
    expect(() => parseEcbXml("<Cube><Cube time='yesterday'><Cube currency='USD' rate='1.1'/></Cube></Cube>")).toThrow(/YYYY-MM-DD/);
  });
});

describe('ratesFromEcbDays', () => {
  const bundled = loadFxRates();

  it('takes the latest rate of each currency, the bundled one for the rest, and says where they came from', () => {
    const rates = ratesFromEcbDays(parseEcbXml(XML), bundled);
    expect(rates.asOf).toBe('2026-11-24');
    expect(rates.source).toBe('ecb');
    expect(rates.eurPerUnit.USD).toBe(1 / 1.05);
    expect(rates.eurPerUnit.JPY).toBe(1 / 160.5);
    expect(rates.eurPerUnit.AED).toBe(1 / 1.05 / AED_PER_USD);
    expect(rates.eurPerUnit.CHF).toBe(bundled.eurPerUnit.CHF);
    expect(rates.eurPerUnit.EUR).toBe(1);
  });

  it('returns the fallback when no day gave a rate', () => {
    expect(ratesFromEcbDays([], bundled)).toBe(bundled);
  });
});

describe('ratesAgeDays', () => {
  it('counts whole days since the publication day, in UTC', () => {
    expect(ratesAgeDays('2026-11-24', new Date('2026-11-24T18:00:00Z'))).toBe(0);
    expect(ratesAgeDays('2026-11-20', new Date('2026-11-24T01:00:00Z'))).toBe(4);
  });
});
