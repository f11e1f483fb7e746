import { ArgumentsHost, BadRequestException, HttpException, Logger, NotFoundException } from '@nestjs/common';
import { Errors, ZulipError } from '../errors/zulip-error';
import { ZulipExceptionFilter } from './exception.filter';
import { setRequestId, ZulipRequest } from './request-params';

interface Captured {
  status?: number;
  body?: unknown;
  headers: Record<string, string>;
}

function run(exception: unknown, opts: { headersSent?: boolean } = {}): Captured {
  const captured: Captured = { headers: {} };
  const res = {
    headersSent: opts.headersSent ?? false,
    setHeader: (k: string, v: string) => {
      captured.headers[k] = v;
    },
    status(code: number) {
      captured.status = code;
      return this;
    },
    json(body: unknown) {
      captured.body = body;
      return this;
    },
  };
  const req = {
    method: 'GET',
    originalUrl: '/api/v1/anything',
    path: '/api/v1/anything',
    headers: {},
  } as unknown as ZulipRequest;
  setRequestId(req, 'req-1234');
  const host = {
    switchToHttp: () => ({ getResponse: () => res, getRequest: () => req }),
  } as unknown as ArgumentsHost;
  new ZulipExceptionFilter().catch(exception, host);
  return captured;
}

describe('ZulipExceptionFilter', () => {
  let logged: jest.SpyInstance;
  beforeEach(() => {
    logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
  });
  afterEach(() => logged.mockRestore());

  it('turns a plain Error into a bare 500 envelope without stack or message, and logs it with the request id', () => {
    const err = new Error('relation "secret_table" does not exist: SELECT * FROM secret_table');
    const out = run(err);
    expect(out.status).toBe(500);
    expect(out.body).toEqual({ result: 'error', msg: 'Internal server error', code: 'INTERNAL_SERVER_ERROR' });
    expect(JSON.stringify(out.body)).not.toMatch(/secret_table|at .*\.ts/);
    expect(logged).toHaveBeenCalledTimes(1);
    expect(String(logged.mock.calls[0][0])).toContain('req-1234');
    expect(String(logged.mock.calls[0][0])).toContain('secret_table');
  });

  it('turns a thrown non-Error value into the same 500', () => {
    const out = run('a string');
    expect(out.status).toBe(500);
    expect(out.body).toEqual({ result: 'error', msg: 'Internal server error', code: 'INTERNAL_SERVER_ERROR' });
  });

  it('renders a ZulipError with its status, code, extra fields and headers', () => {
    const out = run(Errors.unauthorized('Invalid API key'));
    expect(out.status).toBe(401);
    expect(out.body).toEqual({ result: 'error', msg: 'Invalid API key', code: 'UNAUTHORIZED' });
    expect(out.headers).toEqual({ 'WWW-Authenticate': 'Basic realm="zulip"' });

    const missing = run(Errors.missingArgument('content'));
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({
      result: 'error',
      msg: "Missing 'content' argument",
      code: 'REQUEST_VARIABLE_MISSING',
      var_name: 'content',
    });
    expect(logged).not.toHaveBeenCalled();
  });

  it('renders an unknown route (Nest NotFoundException) as a JSON 404', () => {
    const out = run(new NotFoundException('Cannot GET /api/v1/anything'));
    expect(out.status).toBe(404);
    expect(out.body).toEqual({ result: 'error', msg: 'Not Found', code: 'BAD_REQUEST' });
  });

  it('keeps the status and message of other 4xx HttpExceptions', () => {
    const out = run(new BadRequestException('Bad thing'));
    expect(out.status).toBe(400);
    expect(out.body).toEqual({ result: 'error', msg: 'Bad thing', code: 'BAD_REQUEST' });
  });

  it('renders a 413 HttpException and body-parser size errors as 413', () => {
    expect(run(new HttpException('too big', 413))).toMatchObject({
      status: 413,
      body: { result: 'error', msg: 'Request body too large', code: 'BAD_REQUEST' },
    });
    const tooLarge = Object.assign(new Error('request entity too large'), { type: 'entity.too.large', status: 413 });
    expect(run(tooLarge)).toMatchObject({ status: 413, body: { msg: 'Request body too large' } });
  });

  it('renders other body-parser and multer errors as 400 Malformed request body', () => {
    const parse = Object.assign(new Error('Unexpected token'), { type: 'entity.parse.failed', status: 400 });
    expect(run(parse)).toMatchObject({
      status: 400,
      body: { result: 'error', msg: 'Malformed request body', code: 'BAD_REQUEST' },
    });
    const multer = Object.assign(new Error('Too many fields'), { code: 'LIMIT_FIELD_COUNT' });
    expect(run(multer)).toMatchObject({ status: 400, body: { msg: 'Malformed request body' } });
    expect(logged).not.toHaveBeenCalled();
  });

  it('hides 5xx HttpExceptions behind the generic 500', () => {
    const out = run(new HttpException('upstream exploded', 502));
    expect(out.status).toBe(500);
    expect(out.body).toEqual({ result: 'error', msg: 'Internal server error', code: 'INTERNAL_SERVER_ERROR' });
  });

  it('does nothing when the response has already started', () => {
    const out = run(new ZulipError('late'), { headersSent: true });
    expect(out.status).toBeUndefined();
    expect(out.body).toBeUndefined();
  });
});
