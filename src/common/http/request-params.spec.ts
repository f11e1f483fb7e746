import { ignoredParams, markParamsRead, requestParams, ZulipRequest } from './request-params';

function fakeRequest(
  method: string,
  contentType: string | undefined,
  body: unknown,
  query: Record<string, unknown>,
): ZulipRequest {
  return {
    method,
    headers: contentType ? { 'content-type': contentType } : {},
    body,
    query,
  } as unknown as ZulipRequest;
}

describe('requestParams', () => {
  it.each(['GET', 'POST', 'PATCH', 'PUT', 'DELETE'])('%s: form body first, then the query string', (method) => {
    const req = fakeRequest(
      method,
      'application/x-www-form-urlencoded',
      { a: 'body', b: 'body-only' },
      { a: 'query', c: 'query-only' },
    );
    expect(Object.fromEntries(requestParams(req))).toEqual({ a: 'body', b: 'body-only', c: 'query-only' });
  });

  it('reads multipart bodies (zulip-js) like urlencoded ones', () => {
    const req = fakeRequest('PATCH', 'multipart/form-data; boundary=x', { a: 'multi' }, { a: 'query' });
    expect(requestParams(req).get('a')).toBe('multi');
  });

  it('ignores JSON bodies: their parameters are missing', () => {
    const req = fakeRequest('POST', 'application/json', { a: 'json' }, { b: 'query' });
    expect(Object.fromEntries(requestParams(req))).toEqual({ b: 'query' });
  });

  it('ignores a body without a content type', () => {
    const req = fakeRequest('DELETE', undefined, { a: 'x' }, {});
    expect(requestParams(req).size).toBe(0);
  });

  it('takes the last value of a repeated key, in body and query', () => {
    const req = fakeRequest('POST', 'application/x-www-form-urlencoded', { a: ['1', '2', '3'] }, { b: ['x', 'y'] });
    expect(Object.fromEntries(requestParams(req))).toEqual({ a: '3', b: 'y' });
  });

  it('drops values that are not text (nested objects from a non-simple parser)', () => {
    const req = fakeRequest('POST', 'application/x-www-form-urlencoded', { a: { nested: 'x' }, n: 5 }, {});
    expect(Object.fromEntries(requestParams(req))).toEqual({ n: '5' });
  });

  it('computes the parameters once per request', () => {
    const req = fakeRequest('GET', undefined, undefined, { a: '1' });
    expect(requestParams(req)).toBe(requestParams(req));
  });
});

describe('ignoredParams', () => {
  it('lists unread parameters of body and query, sorted', () => {
    const req = fakeRequest(
      'POST',
      'application/x-www-form-urlencoded',
      { zeta: '1', used: '2', Beta: '3' },
      { alpha: '4' },
    );
    markParamsRead(req, ['used']);
    expect(ignoredParams(req)).toEqual(['Beta', 'alpha', 'zeta']);
  });

  it('is empty when everything was read', () => {
    const req = fakeRequest('GET', undefined, undefined, { a: '1' });
    markParamsRead(req, ['a']);
    expect(ignoredParams(req)).toEqual([]);
  });
});
