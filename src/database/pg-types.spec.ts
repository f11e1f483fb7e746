import fc from 'fast-check';
import { types } from 'pg';
import { timestamptzParser } from './pg-types';

describe('timestamptzParser', () => {
  const reference = types.getTypeParser(1184, 'text') as (text: string) => unknown;
  const parse = timestamptzParser(reference);
  const same = (text: string) => {
    const expected = reference(text);
    const actual = parse(text);
    if (expected instanceof Date) {
      expect(actual).toBeInstanceOf(Date);
      expect((actual as Date).getTime()).toBe(expected.getTime());
    } else {
      expect(actual).toEqual(expected);
    }
  };

  it("reads PostgreSQL's ISO output as pg's own parser does", () => {
    for (const text of [
      '2026-11-28 17:15:07.123456+00',
      '2026-11-28 17:15:07+00',
      '2026-11-28 17:15:07.1+05:30',
      '1999-12-31 23:59:59.999999-08',
      '2026-03-01 00:00:00.57-09:30',
      '1000-01-01 00:00:00+00',
      '0099-01-01 00:00:00+00',
      '2026-11-28 17:15:07+05:30:15',
      '2026-11-28 17:15:07 BC',
      '0044-03-15 12:00:00+00 BC',
      'infinity',
      '-infinity',
      '12026-11-28 17:15:07+00',
    ]) {
      same(text);
    }
  });

  it('agrees with pg on any ISO timestamp', () => {
    const pad = (n: number, w = 2) => String(n).padStart(w, '0');
    fc.assert(
      fc.property(
        fc.date({ min: new Date('1000-01-02T00:00:00Z'), max: new Date('9999-12-30T00:00:00Z'), noInvalidDate: true }),
        fc.integer({ min: 0, max: 6 }),
        fc.integer({ min: 0, max: 999_999 }),
        fc.integer({ min: -15 * 60, max: 15 * 60 }),
        (date, fractionDigits, micros, offsetMinutes) => {
          const local = new Date(date.getTime() + offsetMinutes * 60_000);
          const fraction = fractionDigits === 0 ? '' : '.' + pad(micros, 6).slice(0, fractionDigits);
          const abs = Math.abs(offsetMinutes);
          const offset =
            (offsetMinutes < 0 ? '-' : '+') + pad(Math.floor(abs / 60)) + (abs % 60 === 0 ? '' : ':' + pad(abs % 60));
          const text =
            `${pad(local.getUTCFullYear(), 4)}-${pad(local.getUTCMonth() + 1)}-${pad(local.getUTCDate())} ` +
            `${pad(local.getUTCHours())}:${pad(local.getUTCMinutes())}:${pad(local.getUTCSeconds())}${fraction}${offset}`;
          same(text);
        },
      ),
      { numRuns: 5000 },
    );
  });
});
