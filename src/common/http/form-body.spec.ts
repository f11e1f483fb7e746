import fc from 'fast-check';
import qs from 'qs';
import express from 'express';
import request from 'supertest';
import { parseUrlencoded, simpleForm, urlencodedFormMatch } from './form-body';

/** body-parser 2's parse for extended: false: qs with these options (lib/types/urlencoded.js). */
function bodyParserReference(body: string, limit = 1000): Record<string, unknown> {
  const count = body.split('&').length;
  return qs.parse(body, {
    allowPrototypes: true,
    arrayLimit: count,
    depth: 0,
    charset: 'utf-8',
    parameterLimit: limit,
    strictDepth: true,
  });
}

/** Bodies built from the characters that matter to qs's rules, and some that do not. */
const bodyChars = fc.constantFrom(
  '&',
  '=',
  '+',
  '%',
  '5',
  'B',
  'b',
  'D',
  'd',
  '[',
  ']',
  '2',
  '0',
  'E',
  '.',
  'a',
  'k',
  '_',
  'p',
  'r',
  'o',
  't',
  '%5B',
  '%5D',
  '%5b',
  '%26',
  '%3D',
  '%2B',
  '%20',
  '%E2%9C%93',
  '%C3',
  '__proto__',
  'constructor',
  'hasOwnProperty',
  'toString',
  'ü',
  '😀',
  ' ',
  '0',
  '1',
  '[]',
  'a[b]',
  ']=',
);
const bodies = fc.array(bodyChars, { maxLength: 30 }).map((parts) => parts.join(''));

describe('urlencoded form bodies', () => {
  it('parses a client form exactly as body-parser does', () => {
    const body = 'type=stream&to=12&topic=bench+topic&content=Hello+**world**%2C+%3Asmile%3A+%F0%9F%98%80';
    expect(simpleForm(body)).toEqual({
      type: 'stream',
      to: '12',
      topic: 'bench topic',
      content: 'Hello **world**, :smile: 😀',
    });
    expect(parseUrlencoded(body, 'utf-8', 1000)).toStrictEqual(bodyParserReference(body));
  });

  it('collects a repeated key in an array, keeps brackets in values, drops empty keys', () => {
    const body = 'a=1&a=2&&=x&narrow=%5B%7B%22operator%22%3A%22is%22%7D%5D&a=3&flag&%zz=%E0%A4';
    const parsed = simpleForm(body);
    expect(parsed).toEqual({ a: ['1', '2', '3'], narrow: '[{"operator":"is"}]', flag: '', '%zz': '%E0%A4' });
    expect(parsed).toStrictEqual(bodyParserReference(body));
  });

  it('leaves bracket keys, `]=` and __proto__ to qs, with the same result', () => {
    for (const body of ['a[b]=1', 'a%5B%5D=1&a%5B%5D=2', 'x=a]=b', '__proto__=1&b=2', '%5F_proto__=1']) {
      expect(simpleForm(body)).toBeUndefined();
      expect(parseUrlencoded(body, 'utf-8', 1000)).toStrictEqual(bodyParserReference(body));
    }
  });

  it('gives the result qs gives for any body (fast-check)', () => {
    let simple = 0;
    fc.assert(
      fc.property(bodies, (body) => {
        const fast = simpleForm(body);
        if (fast !== undefined) {
          simple++;
          expect(fast).toStrictEqual(bodyParserReference(body));
          expect(Object.keys(fast)).toEqual(Object.keys(bodyParserReference(body)));
        }
        const reference = body === '' ? {} : bodyParserReference(body);
        expect(parseUrlencoded(body, 'utf-8', 1000)).toStrictEqual(reference);
      }),
      { numRuns: 3000 },
    );
    // The property must have exercised the direct path, not only the fallback.
    expect(simple).toBeGreaterThan(300);
  });

  it('refuses more parameters than the limit as body-parser does (413, parameters.too.many)', () => {
    expect(() => parseUrlencoded('a=1&b=2&c=3', 'utf-8', 2)).toThrow(
      expect.objectContaining({ status: 413, type: 'parameters.too.many' }) as Error,
    );
    expect(parseUrlencoded('a=1&b=2', 'utf-8', 2)).toEqual({ a: '1', b: '2' });
  });

  it('decodes ISO-8859-1 bodies with qs', () => {
    expect(parseUrlencoded('name=Ren%E9', 'iso-8859-1', 1000)).toEqual({ name: 'René' });
  });
});

describe('urlencodedFormMatch', () => {
  // A real Express request: the answer must be req.is()'s, asked again for every request.
  const app = express();
  app.all('/', (req, res) => {
    const is = req.is('application/x-www-form-urlencoded');
    res.json({ first: urlencodedFormMatch(req), again: urlencodedFormMatch(req), is });
  });
  const types = [
    'application/x-www-form-urlencoded',
    'application/x-www-form-urlencoded; charset=utf-8',
    'Application/X-WWW-Form-Urlencoded',
    'multipart/form-data; boundary=x',
    'application/json',
    'text/plain',
    'application/x-www-form-urlencoded-not',
    'not a media type',
  ];

  it('answers as req.is() does, for each Content-Type, the first time and once remembered', async () => {
    for (let round = 0; round < 2; round++) {
      for (const type of types) {
        const res = await request(app).post('/').set('Content-Type', type).send('a=1');
        const expected = res.body.is === null ? null : res.body.is !== false;
        expect({ type, first: res.body.first, again: res.body.again }).toEqual({
          type,
          first: expected,
          again: expected,
        });
      }
    }
  });

  it('is null for a request without a body, whatever its Content-Type says', async () => {
    await request(app).post('/').set('Content-Type', types[0]).send('a=1');
    const res = await request(app).get('/').set('Content-Type', types[0]);
    expect(res.body).toEqual({ first: null, again: null, is: null });
  });
});
