import { execFileSync } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
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

  it('keeps requests and responses in fast (not dictionary) property mode through the middleware', () => {
    // V8's own check, in a child process with natives syntax: objects in dictionary mode weighed
    // ~3 KB more per parked long-poll and made every property access of Node's HTTP code slower.
    const script = `
      const express = require('express');
      const { ZulipExpressAdapter } = require(${JSON.stringify(join(__dirname, 'express-adapter.ts'))});
      const app = express();
      app.use((req, res, next) => { req.zulip = { id: 'x' }; res[Symbol('probe')] = 1; res.setHeader('X-Request-Id', 'x'); next(); });
      app.get('/x', (req, res) => res.json({ req: %HasFastProperties(req), res: %HasFastProperties(res) }));
      const adapter = new ZulipExpressAdapter(app);
      adapter.initHttpServer({});
      const server = adapter.getHttpServer();
      server.listen(0, '127.0.0.1', async () => {
        const answer = await fetch('http://127.0.0.1:' + server.address().port + '/x');
        process.stdout.write(await answer.text());
        server.close();
      });`;
    const register = join(__dirname, '..', '..', '..', 'test', 'helpers', 'ts-register.js');
    const out = execFileSync(process.execPath, ['--allow-natives-syntax', '-r', register, '-e', script], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(JSON.parse(out)).toEqual({ req: true, res: true });
  });
});
