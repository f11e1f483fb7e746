import { SerializedResult } from './envelope.interceptor';

describe('SerializedResult', () => {
  it('holds the members of the JSON without its braces', () => {
    const result = SerializedResult.of({ a: 1, b: ['x', { c: null }], 'd "e"': 'é' });
    expect(`{${result.membersJson}}`).toBe(JSON.stringify(result.data));
    expect(SerializedResult.of({}).membersJson).toBe('');
  });

  it("refuses a result holding the envelope's own members", () => {
    for (const key of ['result', 'msg', 'ignored_parameters_unsupported']) {
      expect(() => SerializedResult.of({ [key]: 'x' })).toThrow(`cannot hold the envelope's "${key}"`);
    }
  });
});
