import * as fs from 'fs';
import {
  expectMatchesOpenApi,
  expectResponseMatchesOpenApi,
  findOpenApiOperation,
  getOpenApiExamples,
  isPlaceholderExample,
  loadOpenApiDocument,
  normalizeApiPath,
  OpenApiMismatchError,
  openApiDocumentPath,
  toJsonSchema,
  validateAgainstOpenApi,
} from './openapi';

/** The message of the error `fn` throws (fails the test if it does not throw). */
function thrownMessage(fn: () => void): string {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(OpenApiMismatchError);
    return (error as Error).message;
  }
  throw new Error('expected an OpenApiMismatchError, but nothing was thrown');
}

function clone<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

describe('OpenAPI document loading', () => {
  it('finds and parses the Zulip document', () => {
    const file = openApiDocumentPath();
    expect(fs.existsSync(file)).toBe(true);
    expect(file).toMatch(/test\/fixtures\/zulip\/openapi\.json$/);
    const doc = loadOpenApiDocument();
    expect(doc.openapi).toMatch(/^3\./);
    expect(doc.paths['/messages']).toBeDefined();
    expect(loadOpenApiDocument()).toBe(doc); // cached
  });

  it('honours ZULIP_OPENAPI_PATH', () => {
    const saved = process.env.ZULIP_OPENAPI_PATH;
    const real = openApiDocumentPath();
    try {
      process.env.ZULIP_OPENAPI_PATH = '/nonexistent/zulip-openapi.json';
      expect(() => openApiDocumentPath()).toThrow(/\/nonexistent\/zulip-openapi\.json[\s\S]*ZULIP_OPENAPI_PATH/);
      process.env.ZULIP_OPENAPI_PATH = real;
      expect(openApiDocumentPath()).toBe(real);
    } finally {
      if (saved === undefined) delete process.env.ZULIP_OPENAPI_PATH;
      else process.env.ZULIP_OPENAPI_PATH = saved;
    }
  });
});

describe('operation lookup', () => {
  it.each([
    ['get', '/messages/{message_id}', '/messages/{message_id}'],
    ['get', '/messages/12', '/messages/{message_id}'],
    ['get', '/api/v1/messages/12?apply_markdown=false', '/messages/{message_id}'],
    ['get', 'http://localhost:9991/api/v1/messages/12', '/messages/{message_id}'],
    ['post', '/json/messages/flags', '/messages/flags'],
    ['get', '/api/v1/users/me', '/users/me'],
    ['get', '/users/12', '/users/{user_id}'],
    ['get', '/users/iago@zulip.com', '/users/{email}'],
    ['get', '/users/iago%40zulip.com', '/users/{email}'],
    ['get', '/users/iago@zulip.com/presence', '/users/{user_id_or_email}/presence'],
    ['post', '/users/me/subscriptions/properties', '/users/me/subscriptions/properties'],
    ['get', '/users/me/7/topics', '/users/me/{stream_id}/topics'],
    ['get', '/user_groups/3/members/9', '/user_groups/{user_group_id}/members/{user_id}'],
  ])('%s %s -> %s', (method, input, template) => {
    expect(findOpenApiOperation(method, input)?.template).toBe(template);
  });

  it('returns undefined for unknown operations and throws a readable error when validating them', () => {
    expect(findOpenApiOperation('get', '/no/such/endpoint')).toBeUndefined();
    expect(findOpenApiOperation('put', '/messages')).toBeUndefined();
    expect(thrownMessage(() => expectMatchesOpenApi('get', '/api/v1/no/such/endpoint', 200, {}))).toMatch(
      /No operation GET \/no\/such\/endpoint/,
    );
  });

  it('normalizes paths', () => {
    expect(normalizeApiPath('/api/v1/streams/3/?x=1#y')).toBe('/streams/3');
    expect(normalizeApiPath('/json/users/me')).toBe('/users/me');
    expect(normalizeApiPath('messages')).toBe('/messages');
  });
});

describe('accepts bodies from the document', () => {
  it('GET /server_settings example', () => {
    const [example] = getOpenApiExamples('get', '/server_settings', 200);
    expect(example).toMatchObject({ result: 'success', realm_name: expect.any(String) });
    expectMatchesOpenApi('get', '/server_settings', 200, example);
    expectMatchesOpenApi('get', '/api/v1/server_settings', 200, example);
  });

  it('POST /messages success', () => {
    expectMatchesOpenApi('post', '/messages', 200, { result: 'success', msg: '', id: 42 });
    expectMatchesOpenApi('post', '/api/v1/messages', 200, {
      result: 'success',
      msg: '',
      id: 42,
      automatic_new_visibility_policy: 2,
      ignored_parameters_unsupported: ['foo'],
    });
  });

  it('error examples (400 with oneOf alternatives)', () => {
    const examples = getOpenApiExamples('post', '/messages', 400);
    expect(examples.length).toBeGreaterThanOrEqual(2);
    for (const example of examples) expectMatchesOpenApi('post', '/messages', 400, example);
    expectMatchesOpenApi('post', '/messages', 400, { result: 'error', msg: 'Invalid email', code: 'BAD_REQUEST' });
    expectMatchesOpenApi('post', '/messages', 400, {
      result: 'error',
      msg: "Channel 'nonexistent' does not exist",
      code: 'STREAM_DOES_NOT_EXIST',
      stream: 'nonexistent',
    });
  });

  it('OpenAPI nullable fields accept null', () => {
    const [example] = getOpenApiExamples('get', '/users/{user_id}', 200) as Array<{ user: Record<string, unknown> }>;
    const body = clone(example);
    body.user.avatar_url = null; // User.avatar_url: nullable: true
    expectMatchesOpenApi('get', '/users/12', 200, body);
  });

  it('validates every example in the document against its own schema', () => {
    const doc = loadOpenApiDocument();
    const failures: string[] = [];
    let checked = 0;
    for (const [template, item] of Object.entries<Record<string, { responses?: Record<string, unknown> }>>(doc.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        if (!operation || typeof operation !== 'object' || !operation.responses) continue;
        for (const status of Object.keys(operation.responses)) {
          if (!/^\d{3}$/.test(status)) continue;
          for (const example of getOpenApiExamples(method, template, Number(status))) {
            checked += 1;
            try {
              expectMatchesOpenApi(method, template, Number(status), example);
            } catch (error) {
              failures.push((error as Error).message.split('\nBody:')[0]);
            }
          }
        }
      }
    }
    expect(failures).toEqual([]);
    expect(checked).toBeGreaterThan(200);
  });

  it('errata: fractional retry-after (429) and extra fields of documented error variants', () => {
    expectMatchesOpenApi('post', '/rest-error-handling', 429, {
      result: 'error',
      msg: 'API usage exceeded rate limit',
      code: 'RATE_LIMIT_HIT',
      'retry-after': 28.706807374954224,
    });
    expectMatchesOpenApi('patch', '/messages/5', 400, {
      result: 'error',
      msg: 'You only have permission to move the 2/5 most recent messages in this topic.',
      code: 'MOVE_MESSAGES_TIME_LIMIT_EXCEEDED',
      first_message_id_allowed_to_move: null,
      total_messages_allowed_to_move: 2,
      total_messages_in_topic: 5,
    });
  });

  it('undocumented error statuses are checked against the generic Zulip error shape', () => {
    // GET /server_settings documents only 200.
    expectMatchesOpenApi('get', '/server_settings', 401, {
      result: 'error',
      msg: 'Unauthorized',
      code: 'UNAUTHORIZED',
    });
    expectMatchesOpenApi('get', '/server_settings', 404, {
      result: 'error',
      msg: 'Not found',
      code: 'BAD_REQUEST',
      extra_detail: 1, // error-specific fields are allowed here
    });
    const message = thrownMessage(() =>
      expectMatchesOpenApi('get', '/server_settings', 401, { result: 'error', msg: 'x' }),
    );
    expect(message).toMatch(/generic Zulip error shape/);
    expect(message).toMatch(/missing required property "code"/);
  });

  it('expectResponseMatchesOpenApi takes method and path from a supertest response', () => {
    expectResponseMatchesOpenApi({
      status: 200,
      body: { result: 'success', msg: '', id: 42 },
      req: { method: 'POST', path: '/api/v1/messages?x=1' },
    });
    expect(() =>
      expectResponseMatchesOpenApi({
        status: 200,
        body: { result: 'success', msg: '' },
        req: { method: 'POST', path: '/api/v1/messages' },
      }),
    ).toThrow(/missing required property "id"/);
  });
});

describe('rejects wrong bodies', () => {
  it('missing required field', () => {
    const message = thrownMessage(() => expectMatchesOpenApi('post', '/messages', 200, { result: 'success', msg: '' }));
    expect(message).toMatch(/POST \/messages, status 200, schema responses\["200"\]/);
    expect(message).toMatch(/\(root\): missing required property "id"/);
    expect(message).toMatch(/Body:\n\{\n {2}"result": "success"/);
  });

  it('wrong type', () => {
    const message = thrownMessage(() =>
      expectMatchesOpenApi('post', '/messages', 200, { result: 'success', msg: '', id: '42' }),
    );
    expect(message).toMatch(/\/id: must be integer, got "42"/);
  });

  it('wrong enum value', () => {
    expect(
      thrownMessage(() => expectMatchesOpenApi('post', '/messages', 200, { result: 'ok', msg: '', id: 1 })),
    ).toMatch(/\/result: must be equal to one of the allowed values \["success"\]/);
  });

  it('null where the document does not say nullable', () => {
    const [example] = getOpenApiExamples('get', '/users/me', 200) as Array<Record<string, unknown>>;
    expect(thrownMessage(() => expectMatchesOpenApi('get', '/users/me', 200, { ...example, full_name: null }))).toMatch(
      /\/full_name: must be string/,
    );
  });

  it('extra field where additionalProperties is false', () => {
    const [example] = getOpenApiExamples('get', '/server_settings', 200) as Array<Record<string, unknown>>;
    const message = thrownMessage(() =>
      expectMatchesOpenApi('get', '/server_settings', 200, { ...example, bogus_field: 1 }),
    );
    expect(message).toMatch(/unexpected property "bogus_field" \(additionalProperties: false\)/);
  });

  it('extra field in an error body (every oneOf alternative forbids it)', () => {
    const message = thrownMessage(() =>
      expectMatchesOpenApi('post', '/messages', 400, { result: 'error', msg: 'x', code: 'BAD_REQUEST', bogus: 1 }),
    );
    expect(message).toMatch(/matches none of the \d+ alternatives/);
    expect(message).toMatch(/unexpected property "bogus"/);
  });

  it('nested: a malformed event in GET /events is explained by its closest alternative', () => {
    const [example] = getOpenApiExamples('get', '/events', 200) as Array<{ events: Array<Record<string, unknown>> }>;
    const body = clone(example);
    body.events[0].bogus = true;
    const message = thrownMessage(() => expectMatchesOpenApi('get', '/api/v1/events?queue_id=abc', 200, body));
    expect(message).toMatch(/\/events\/0: matches none of the \d+ alternatives/);
    expect(message).toMatch(/\/events\/0: unexpected property "bogus"/);
    expect(message.split('\nBody:')[0].split('\n').length).toBeLessThan(10);
  });

  it('undocumented success status', () => {
    expect(thrownMessage(() => expectMatchesOpenApi('get', '/server_settings', 201, {}))).toMatch(
      /Status 201 is not documented for GET \/server_settings/,
    );
  });

  it('validateAgainstOpenApi reports instead of throwing', () => {
    const result = validateAgainstOpenApi('post', '/messages/', 200, { result: 'success', msg: '' });
    expect(result.valid).toBe(false);
    expect(result.template).toBe('/messages');
    expect(result.response).toBe('responses["200"]');
    expect(result.errors.map((e) => e.keyword)).toContain('required');
  });
});

describe('schema conversion', () => {
  it('turns OpenAPI nullable into type unions and drops annotations', () => {
    expect(toJsonSchema({ type: 'integer', nullable: true, example: 3, 'x-foo': 1, description: 'd' })).toEqual({
      type: ['integer', 'null'],
    });
    expect(toJsonSchema({ type: 'string', enum: ['a'], nullable: true })).toEqual({
      type: ['string', 'null'],
      enum: ['a', null],
    });
    expect(toJsonSchema({ nullable: true })).toEqual({});
    expect(toJsonSchema({ $ref: '#/components/schemas/User', nullable: true })).toEqual({
      anyOf: [{ type: 'null' }, { $ref: 'zulip-openapi-components.json#/components/schemas/User' }],
    });
    // Property *names* that look like keywords are kept.
    expect(toJsonSchema({ type: 'object', properties: { example: { type: 'string', example: 'x' } } })).toEqual({
      type: 'object',
      properties: { example: { type: 'string' } },
    });
    expect(toJsonSchema({ oneOf: [{ type: 'string' }, { type: 'integer' }] })).toEqual({
      anyOf: [{ type: 'string' }, { type: 'integer' }],
    });
  });

  it('recognises generated placeholder examples', () => {
    expect(isPlaceholderExample({ result: '', msg: '', code: '' })).toBe(true);
    expect(isPlaceholderExample({ api_key: 'api_key', user_id: 0, email: 'email' })).toBe(true);
    expect(isPlaceholderExample({ result: 'success', msg: '' })).toBe(false);
  });
});
