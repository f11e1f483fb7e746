import fc from 'fast-check';
import { types } from 'pg';
import { boolArrayParser, int4ArrayParser, timestamptzParser } from './pg-types';

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

describe('int4ArrayParser and boolArrayParser', () => {
  const intReference = types.getTypeParser(1007 as never, 'text') as (text: string) => unknown;
  const boolReference = types.getTypeParser(1000 as never, 'text') as (text: string) => unknown;
  const parseInts = int4ArrayParser(intReference);
  const parseBools = boolArrayParser(boolReference);
  // The same parsers with no way out: what they read must be read by their own path.
  const noFallback = (text: string): never => {
    throw new Error(`fell back on ${text}`);
  };
  const intsDirect = int4ArrayParser(noFallback);
  const boolsDirect = boolArrayParser(noFallback);

  it("reads PostgreSQL's output, and what it does not read itself, as pg's own parsers do", () => {
    for (const text of [
      '{}',
      '{0}',
      '{1,-2,3}',
      '{2147483647,-2147483648}',
      '{1,NULL,3}',
      '{NULL}',
      '{{1,2},{3,4}}',
      '[0:1]={5,6}',
      '{ 1, 2 }',
      '{12345678901}',
      '{1,,2}',
      '{-}',
      '{--1}',
      '{1-2}',
      '{',
      '}',
      '',
    ]) {
      let expected: unknown;
      try {
        expected = intReference(text);
      } catch {
        expect(() => parseInts(text)).toThrow();
        continue;
      }
      expect(parseInts(text)).toEqual(expected);
    }
    for (const text of ['{}', '{t}', '{f,t,f}', '{t,NULL}', '{{t},{f}}', '{tf}', '{t,}', '{true}', '[1:1]={t}']) {
      expect(parseBools(text)).toEqual(boolReference(text));
    }
  });

  it('agrees with pg on any integer[] and boolean[] PostgreSQL prints', () => {
    fc.assert(
      fc.property(
        fc.array(fc.option(fc.integer({ min: -2147483648, max: 2147483647 }), { nil: null, freq: 20 }), {
          maxLength: 50,
        }),
        fc.array(fc.boolean(), { maxLength: 50 }),
        (ints, bools) => {
          const intText = `{${ints.map((n) => (n === null ? 'NULL' : String(n))).join(',')}}`;
          expect(parseInts(intText)).toEqual(intReference(intText));
          if (!ints.includes(null)) expect(intsDirect(intText)).toEqual(intReference(intText));
          const boolText = `{${bools.map((b) => (b ? 't' : 'f')).join(',')}}`;
          expect(parseBools(boolText)).toEqual(boolReference(boolText));
          expect(boolsDirect(boolText)).toEqual(boolReference(boolText));
        },
      ),
      { numRuns: 3000 },
    );
  });
});
