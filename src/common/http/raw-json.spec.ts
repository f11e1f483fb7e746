import { encodeWithRawJson, JoinedArrays, RawJson } from './raw-json';

const json = (value: unknown) => Buffer.from(JSON.stringify(value), 'utf8');

describe('RawJson', () => {
  const elements = [
    { name: 'Denmark', n: 1, nested: { a: [1, 2, null] } },
    { name: 'शिव — “quoted” \u0000 \\ "', n: -2.5e-7 },
    {},
  ];

  it('an array of serialised elements is what JSON.stringify writes', () => {
    expect(RawJson.array(elements.map(json)).bytes.equals(json(elements))).toBe(true);
    expect(RawJson.array([]).bytes.toString()).toBe('[]');
  });

  it('other serialisers see the value it stands for', () => {
    const raw = RawJson.array(elements.map(json));
    expect(JSON.stringify({ streams: raw })).toBe(JSON.stringify({ streams: elements }));
  });

  it('a body with RawJson values encodes to the bytes of the plain body', () => {
    const body = {
      result: 'success',
      msg: '',
      first: RawJson.array(elements.map(json)),
      between: 'naïve \u0000raw-json- text',
      second: new RawJson(json({ x: 'ü' })),
      last: [1, 'two'],
    };
    const plain = { ...body, first: elements, second: { x: 'ü' } };
    expect(encodeWithRawJson(body)!.equals(json(plain))).toBe(true);
  });

  it('a value in pieces is spliced piece by piece', () => {
    const text = json(elements);
    const pieces = [text.subarray(0, 7), text.subarray(7, 8), text.subarray(8)];
    const raw = new RawJson(pieces);
    expect(raw.bytes.equals(text)).toBe(true);
    expect(JSON.stringify({ x: raw })).toBe(JSON.stringify({ x: elements }));
    expect(encodeWithRawJson({ result: 'success', x: raw })!.equals(json({ result: 'success', x: elements }))).toBe(
      true,
    );
  });

  it('a body without any leaves the usual path alone', () => {
    expect(encodeWithRawJson({ result: 'success', msg: '' })).toBeNull();
  });
});

describe('JoinedArrays', () => {
  const a = json({ a: 1 });
  const b = json({ b: 2 });
  const c = json({ c: 3 });

  it('joins an array once per key and list of element buffers', () => {
    const joined = new JoinedArrays<object>();
    const key = {};
    const first = joined.array(key, [a, b]);
    expect(first.bytes.toString()).toBe('[{"a":1},{"b":2}]');
    expect(joined.array(key, [a, b])).toBe(first);
  });

  it('joins again when any element is another buffer, even with the same bytes, or the key differs', () => {
    const joined = new JoinedArrays<object>();
    const key = {};
    const first = joined.array(key, [a, b]);
    const copy = json({ b: 2 });
    const again = joined.array(key, [a, copy]);
    expect(again).not.toBe(first);
    expect(again.bytes.equals(first.bytes)).toBe(true);
    expect(joined.array(key, [a])).not.toBe(first);
    expect(joined.array(key, [a, b, c]).bytes.toString()).toBe('[{"a":1},{"b":2},{"c":3}]');
    expect(joined.array({}, [a, b])).not.toBe(first);
  });

  it('keeps the last few lists of a key', () => {
    const joined = new JoinedArrays<object>(2);
    const key = {};
    const ab = joined.array(key, [a, b]);
    const bc = joined.array(key, [b, c]);
    expect(joined.array(key, [a, b])).toBe(ab);
    expect(joined.array(key, [b, c])).toBe(bc);
    joined.array(key, [c]);
    // [a, b] was the least recently added of the three: gone.
    expect(joined.array(key, [a, b])).not.toBe(ab);
  });
});
