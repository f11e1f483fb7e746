/**
 * Over-long request heads and over-large bodies of every content type get Zulip's JSON envelope
 * (431/413/400), never an empty answer or a reset; bodies are bounded before the caller is known;
 * an upload is read only after authentication (issue 11, items 1 and 6).
 */
import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import * as net from 'node:net';
import type { AddressInfo } from 'node:net';
import { HAMLET } from '../../helpers/api';
import { startTestApp, TestApp } from '../../helpers/test-app';

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
  /** Socket error seen by the client (ECONNRESET, EPIPE), if any. */
  error: string | null;
  /** Bytes of the body the client managed to write before the answer arrived. */
  written: number;
}

/**
 * Sends `head` and then `body` (in 64 KiB pieces, or as `chunks` with chunked encoding) over a
 * raw socket, reads the whole answer until the server closes or answers completely.
 */
function rawRequest(
  port: number,
  head: string,
  body: Buffer | Buffer[] = Buffer.alloc(0),
  opts: { stopAfter?: number; keepOpen?: boolean } = {},
): Promise<RawAnswer> {
  return new Promise((done) => {
    const socket = net.connect(port, '127.0.0.1');
    const received: Buffer[] = [];
    let error: string | null = null;
    let written = 0;
    let finished = false;
    const pieces: Buffer[] = [];
    const chunked = Array.isArray(body);
    if (chunked) {
      for (const c of body) pieces.push(Buffer.from(`${c.length.toString(16)}\r\n`), c, Buffer.from('\r\n'));
      pieces.push(Buffer.from('0\r\n\r\n'));
    } else {
      for (let off = 0; off < body.length; off += 65536) pieces.push(body.subarray(off, off + 65536));
    }
    const finish = () => {
      if (finished) return;
      finished = true;
      socket.destroy();
      const text = Buffer.concat(received).toString('latin1');
      const split = text.indexOf('\r\n\r\n');
      const headLines = (split >= 0 ? text.slice(0, split) : text).split('\r\n');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(headLines[0] ?? '')?.[1] ?? 0);
      const headers: Record<string, string> = {};
      for (const line of headLines.slice(1)) {
        const i = line.indexOf(':');
        if (i > 0) headers[line.slice(0, i).toLowerCase()] = line.slice(i + 1).trim();
      }
      let parsed: unknown = split >= 0 ? text.slice(split + 4) : undefined;
      try {
        parsed = JSON.parse(Buffer.from(parsed as string, 'latin1').toString('utf8'));
      } catch {
        // not JSON: keep the text
      }
      done({ status, headers, body: parsed, error, written });
    };
    const complete = () => {
      const text = Buffer.concat(received).toString('latin1');
      const split = text.indexOf('\r\n\r\n');
      if (split < 0) return false;
      const length = /\r\ncontent-length: *(\d+)/i.exec(text.slice(0, split));
      return length !== null && Buffer.byteLength(text.slice(split + 4), 'latin1') >= Number(length[1]);
    };
    socket.on('data', (d: Buffer) => {
      received.push(d);
      if (complete()) finish();
    });
    socket.on('error', (e: NodeJS.ErrnoException) => {
      error = e.code ?? e.message;
      finish();
    });
    socket.on('close', finish);
    socket.write(head);
    let i = 0;
    const pump = () => {
      while (i < pieces.length && !finished) {
        if (opts.stopAfter !== undefined && written >= opts.stopAfter) return; // keep the request open
        const ok = socket.write(pieces[i]);
        written += pieces[i].length;
        i += 1;
        if (!ok) {
          socket.once('drain', pump);
          return;
        }
      }
    };
    pump();
  });
}

function expectEnvelope(answer: RawAnswer, status: number, msg: string): void {
  expect({ status: answer.status, body: answer.body, error: answer.error }).toEqual({
    status,
    body: { result: 'error', msg, code: 'BAD_REQUEST' },
    error: null,
  });
  expect(answer.headers['content-type']).toMatch(/^application\/json/);
}

const TOO_LARGE = 'Request body too large';

describe('request limits over raw HTTP', () => {
  let t: TestApp;
  let port: number;
  let authHeader: string;

  beforeAll(async () => {
    t = await startTestApp({ MAX_BODY_BYTES: '65536', MAX_FILE_UPLOAD_SIZE_MIB: '1' });
    await t.app.listen(0, '127.0.0.1');
    port = (t.app.getHttpServer().address() as AddressInfo).port;
    authHeader = `Basic ${Buffer.from((await t.auth(HAMLET)).join(':')).toString('base64')}`;
  });
  afterAll(() => t.close());

  const post = (path: string, type: string, extra = '') =>
    `POST /api/v1${path} HTTP/1.1\r\nHost: zulip.testserver\r\nAuthorization: ${authHeader}\r\n` +
    `Content-Type: ${type}\r\n${extra}`;

  describe('request heads', () => {
    it('a 200 kB query string gets a JSON 431', async () => {
      const narrow = encodeURIComponent(JSON.stringify([{ operator: 'search', operand: 'x'.repeat(200_000) }]));
      const answer = await rawRequest(port, `GET /api/v1/messages?narrow=${narrow} HTTP/1.1\r\nHost: x\r\n\r\n`);
      expectEnvelope(answer, 431, 'Request headers too large');
      expect(answer.headers.connection).toBe('close');
    });

    it('a 200 kB header gets a JSON 431', async () => {
      const answer = await rawRequest(
        port,
        `GET /api/v1/users/me HTTP/1.1\r\nHost: x\r\nX-Pad: ${'y'.repeat(200_000)}\r\n\r\n`,
      );
      expectEnvelope(answer, 431, 'Request headers too large');
    });

    it('a query string of 40 kB is still served', async () => {
      const narrow = JSON.stringify([{ operator: 'search', operand: 'x'.repeat(40_000) }]);
      const res = await t
        .http()
        .get('/api/v1/messages')
        .auth(...(await t.auth(HAMLET)))
        .query({ anchor: 'newest', num_before: 1, num_after: 0, narrow });
      expect(res.status).toBe(200);
    });

    it.each([
      ['a request line that is not HTTP', 'HELLO\r\n\r\n'],
      ['a bad header name', 'GET /api/v1/users/me HTTP/1.1\r\nHost: x\r\nBad Header: 1\r\n\r\n'],
      [
        'two different Content-Lengths',
        'POST /api/v1/register HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab',
      ],
      [
        'an invalid chunk size',
        'POST /api/v1/register HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n',
      ],
    ])('%s gets a JSON 400', async (_label, head) => {
      expectEnvelope(await rawRequest(port, head), 400, 'Malformed HTTP request');
    });

    it('the server keeps answering afterwards', async () => {
      const res = await t
        .http()
        .get('/api/v1/users/me')
        .auth(...(await t.auth(HAMLET)));
      expect(res.status).toBe(200);
    });
  });

  describe('bodies over MAX_BODY_BYTES', () => {
    const big = Buffer.alloc(2 * 1024 * 1024, 'a');

    it.each([
      'application/json',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=xyz',
      'text/plain',
      'application/octet-stream',
    ])('a 2 MB %s body is refused by its Content-Length, every time', async (type) => {
      for (let i = 0; i < 3; i++) {
        const answer = await rawRequest(port, `${post('/register', type)}Content-Length: ${big.length}\r\n\r\n`, big);
        expectEnvelope(answer, 413, TOO_LARGE);
      }
    });

    it('refuses before authentication', async () => {
      const head = `POST /api/v1/register HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${big.length}\r\n\r\n`;
      expectEnvelope(await rawRequest(port, head, big), 413, TOO_LARGE);
    });

    it('answers before the client has sent the body', async () => {
      const answer = await rawRequest(
        port,
        `${post('/register', 'application/json')}Content-Length: ${50 * 1024 * 1024}\r\n\r\n`,
        big,
        { stopAfter: 64 * 1024 },
      );
      expectEnvelope(answer, 413, TOO_LARGE);
      expect(answer.written).toBeLessThan(big.length);
    });

    const chunks = Array.from({ length: 40 }, () => Buffer.alloc(4096, 'b')); // 160 kB in all

    it.each(['application/json', 'text/plain', 'application/x-www-form-urlencoded'])(
      'a chunked %s body is refused by its counted bytes',
      async (type) => {
        const answer = await rawRequest(port, `${post('/register', type)}Transfer-Encoding: chunked\r\n\r\n`, chunks);
        expectEnvelope(answer, 413, TOO_LARGE);
      },
    );

    function multipartFields(count: number, size: number): Buffer[] {
      const parts: Buffer[] = [];
      for (let i = 0; i < count; i++) {
        parts.push(Buffer.from(`--xyz\r\nContent-Disposition: form-data; name="f${i}"\r\n\r\n${'c'.repeat(size)}\r\n`));
      }
      parts.push(Buffer.from('--xyz--\r\n'));
      return parts;
    }

    it('a chunked multipart body whose fields are each small but together too large is refused', async () => {
      // 40 fields of 4 kB: each under the per-field limit, 160 kB in all.
      const answer = await rawRequest(
        port,
        `${post('/register', 'multipart/form-data; boundary=xyz')}Transfer-Encoding: chunked\r\n\r\n`,
        multipartFields(40, 4096),
      );
      expectEnvelope(answer, 413, TOO_LARGE);
    });

    it('a chunked multipart body under the limit is read', async () => {
      const answer = await rawRequest(
        port,
        `${post('/dev_fetch_api_key', 'multipart/form-data; boundary=xyz')}Transfer-Encoding: chunked\r\n\r\n`,
        [
          Buffer.from(`--xyz\r\nContent-Disposition: form-data; name="username"\r\n\r\n${HAMLET}\r\n`),
          ...multipartFields(3, 1000),
        ],
      );
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ result: 'success', email: HAMLET });
    });

    it('a JSON body under the limit is read and ignored, and the request is served', async () => {
      const small = Buffer.from(JSON.stringify({ username: HAMLET, pad: 'p'.repeat(30_000) }));
      const answer = await rawRequest(
        port,
        `POST /api/v1/dev_fetch_api_key?username=${encodeURIComponent(HAMLET)} HTTP/1.1\r\nHost: x\r\n` +
          `Content-Type: application/json\r\nContent-Length: ${small.length}\r\n\r\n`,
        small,
      );
      expect(answer.status).toBe(200);
    });

    it('the server keeps answering afterwards', async () => {
      const res = await t
        .http()
        .get('/api/v1/users/me')
        .auth(...(await t.auth(HAMLET)));
      expect(res.status).toBe(200);
    });
  });

  describe('uploads', () => {
    const incoming = () => join(resolve(t.config.uploadsDir), '.incoming');
    const entries = () => (existsSync(incoming()) ? readdirSync(incoming()) : []);
    const fileBody = (size: number) =>
      Buffer.concat([
        Buffer.from('--xyz\r\nContent-Disposition: form-data; name="file"; filename="a.bin"\r\n\r\n'),
        Buffer.alloc(size, 'z'),
        Buffer.from('\r\n--xyz--\r\n'),
      ]);

    it('an anonymous upload is answered 401 before its body is read, and nothing is stored', async () => {
      const before = entries();
      const body = fileBody(900 * 1024);
      const answer = await rawRequest(
        port,
        `POST /api/v1/user_uploads HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=xyz\r\n` +
          `Content-Length: ${body.length}\r\n\r\n`,
        body,
        { stopAfter: 64 * 1024 },
      );
      expect(answer.status).toBe(401);
      expect(answer.body).toMatchObject({ result: 'error', code: 'UNAUTHORIZED' });
      expect(answer.written).toBeLessThan(body.length);
      expect(entries()).toEqual(before);
    });

    it('a bad API key is answered 401 before the body is read', async () => {
      const body = fileBody(900 * 1024);
      const bad = `Basic ${Buffer.from(`${HAMLET}:wrongkeywrongkeywrongkeywrongkey`).toString('base64')}`;
      const answer = await rawRequest(
        port,
        `POST /api/v1/user_uploads HTTP/1.1\r\nHost: x\r\nAuthorization: ${bad}\r\n` +
          `Content-Type: multipart/form-data; boundary=xyz\r\nContent-Length: ${body.length}\r\n\r\n`,
        body,
        { stopAfter: 64 * 1024 },
      );
      expect(answer.status).toBe(401);
      expect(answer.written).toBeLessThan(body.length);
    });

    it('an upload larger than the file limit plus framing is refused by its Content-Length', async () => {
      const body = fileBody(3 * 1024 * 1024);
      const answer = await rawRequest(
        port,
        `${post('/user_uploads', 'multipart/form-data; boundary=xyz')}Content-Length: ${body.length}\r\n\r\n`,
        body,
      );
      expectEnvelope(answer, 413, TOO_LARGE);
    });

    it('a chunked upload is capped by counted bytes', async () => {
      const body = fileBody(3 * 1024 * 1024);
      const pieces: Buffer[] = [];
      for (let off = 0; off < body.length; off += 65536) pieces.push(body.subarray(off, off + 65536));
      const answer = await rawRequest(
        port,
        `${post('/user_uploads', 'multipart/form-data; boundary=xyz')}Transfer-Encoding: chunked\r\n\r\n`,
        pieces,
      );
      expect(answer.status).toBeGreaterThanOrEqual(400);
      expect(answer.status).toBeLessThan(500);
      expect(answer.body).toMatchObject({ result: 'error' });
      expect(answer.error).toBeNull();
    });

    it('an authenticated upload within the limits is stored', async () => {
      const body = fileBody(10_000);
      const answer = await rawRequest(
        port,
        `${post('/user_uploads', 'multipart/form-data; boundary=xyz')}Content-Length: ${body.length}\r\n\r\n`,
        body,
      );
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ result: 'success', url: expect.stringMatching(/a\.bin$/) });
    });
  });
});
