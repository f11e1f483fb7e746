import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { hoistRoutes } from './routes';

describe('hoistRoutes', () => {
  function app() {
    const a = express();
    a.get('/api/items/:id', (req, res) => res.send(`item ${req.params.id}`));
    a.get('/api/items/latest', (_req, res) => res.send('latest'));
    a.post('/api/other', (_req, res) => res.send('other'));
    a.post('/api/send', (_req, res) => res.send('sent'));
    a.get('/api/send', (_req, res) => res.send('read'));
    return a;
  }
  const paths = (a: ReturnType<typeof express>) =>
    (a.router as unknown as { stack: { route?: { path: string; methods: object } }[] }).stack.map(
      (l) => `${Object.keys(l.route?.methods ?? {}).join()} ${l.route?.path}`,
    );

  it('moves a route to the front only when no earlier route answers its method and path', async () => {
    const a = app();
    // GET /api/items/latest stays behind GET /api/items/:id, which answers it first.
    expect(hoistRoutes(a, ['GET /api/send', 'GET /api/items/latest', 'POST /api/send', 'GET /missing'])).toEqual([
      'GET /api/send',
      'POST /api/send',
    ]);
    expect(paths(a)).toEqual([
      'get /api/send',
      'post /api/send',
      'get /api/items/:id',
      'get /api/items/latest',
      'post /api/other',
    ]);
    const server = http.createServer(a).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const { port } = server.address() as AddressInfo;
    const text = async (method: string, path: string) =>
      (await fetch(`http://127.0.0.1:${port}${path}`, { method })).text();
    try {
      expect(await text('GET', '/api/items/latest')).toBe('item latest');
      expect(await text('POST', '/api/send')).toBe('sent');
      expect(await text('GET', '/api/send/')).toBe('read');
      expect(await text('POST', '/api/other')).toBe('other');
    } finally {
      server.close();
    }
  });
});
