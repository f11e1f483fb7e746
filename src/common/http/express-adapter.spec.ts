import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { ZulipExpressAdapter } from './express-adapter';

describe('ZulipExpressAdapter', () => {
  let server: http.Server;
  let app: ReturnType<typeof express>;
  const seen: { req: object | null; res: object | null }[] = [];

  beforeAll(async () => {
    app = express();
    app.get('/hello', (req, res) => {
      res.status(201).json({ ip: req.ip, path: req.path });
    });
    const adapter = new ZulipExpressAdapter(app);
    adapter.initHttpServer({});
    server = adapter.getHttpServer();
    // Before Express's own handler: what Node built.
    server.prependListener('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
      seen.push({ req: Object.getPrototypeOf(req) as object, res: Object.getPrototypeOf(res) as object });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });

  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("builds requests and responses with Express's prototypes, which still serve every request", async () => {
    const { port } = server.address() as AddressInfo;
    const answer = await fetch(`http://127.0.0.1:${port}/hello?x=1`);
    expect(answer.status).toBe(201);
    expect(answer.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await answer.json()).toEqual({ ip: '127.0.0.1', path: '/hello' });
    expect(seen).toHaveLength(1);
    expect(seen[0].req).toBe(app.request);
    expect(seen[0].res).toBe(app.response);
    const notFound = await fetch(`http://127.0.0.1:${port}/nothing`);
    expect(notFound.status).toBe(404);
  });
});
