import http from 'node:http';
import type { NestApplicationOptions } from '@nestjs/common';
import { ExpressAdapter } from '@nestjs/platform-express';
import express from 'express';

type ExpressApp = ReturnType<typeof express>;

/**
 * Request and response classes whose prototypes are Express's own `app.request` and
 * `app.response` (each an object inheriting from Node's IncomingMessage / ServerResponse).
 *
 * Express gives every request and response its methods by `Object.setPrototypeOf(req,
 * app.request)` when the request reaches the app. On an object Node just built as a plain
 * IncomingMessage that changes its hidden class: measured here, that alone was more than half
 * of the CPU of a trivial request through bare Express 5 (~150–200 µs → ~70 µs per request,
 * issue 15). When Node builds the objects with these prototypes from the start, Express's call
 * sets the prototype they already have, which V8 does at no cost. Nothing else changes: Express
 * still runs every request through the same app, with the same methods.
 *
 * They are classes extending Node's, each with Express's object spliced in as its prototype's
 * prototype, and `app.request`/`app.response` then point at the classes' prototypes (so Express's
 * call still finds the prototype in place). Not plain functions calling Node's constructors: V8
 * sizes an object from the constructor it is made by, and a function that only calls another
 * got room for a handful of fields; Node's ~40 went out of line, and the first symbol-keyed one
 * turned every request and response into a dictionary — 1.6 and 3.1 KB of hash table each
 * (of ~12 KB per parked long-poll), and a hash look-up for every field Node's HTTP code reads
 * (`_storeHeader` alone was ten times the raw server's). A derived class is sized from the
 * whole constructor chain.
 */
function requestClasses(app: ExpressApp): {
  IncomingMessage: typeof http.IncomingMessage;
  ServerResponse: typeof http.ServerResponse;
} {
  class Request extends http.IncomingMessage {}
  Object.setPrototypeOf(Request.prototype, app.request);
  (app as unknown as { request: object }).request = Request.prototype;
  class Response extends http.ServerResponse {}
  Object.setPrototypeOf(Response.prototype, app.response);
  (app as unknown as { response: object }).response = Response.prototype;
  return { IncomingMessage: Request, ServerResponse: Response as unknown as typeof http.ServerResponse };
}

/**
 * Nest's Express adapter, whose HTTP server builds requests and responses with Express's
 * prototypes already in place ({@link requestClasses}). The options this app does not use
 * (HTTPS, `return503OnClosing`, `forceCloseConnections`) keep Nest's own server.
 */
export class ZulipExpressAdapter extends ExpressAdapter {
  override initHttpServer(options: NestApplicationOptions): void {
    if (options?.httpsOptions || options?.return503OnClosing || options?.forceCloseConnections) {
      return super.initHttpServer(options);
    }
    const app = this.getInstance<ExpressApp>();
    this.httpServer = http.createServer(requestClasses(app), app);
  }
}
