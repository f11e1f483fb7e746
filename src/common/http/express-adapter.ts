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
 */
function requestClasses(app: ExpressApp): {
  IncomingMessage: typeof http.IncomingMessage;
  ServerResponse: typeof http.ServerResponse;
} {
  function Request(this: http.IncomingMessage, socket: import('node:net').Socket): void {
    http.IncomingMessage.call(this, socket);
  }
  Request.prototype = app.request;
  function Response(this: http.ServerResponse, req: http.IncomingMessage, options?: unknown): void {
    (http.ServerResponse as unknown as (req: http.IncomingMessage, options?: unknown) => void).call(this, req, options);
  }
  Response.prototype = app.response;
  return {
    IncomingMessage: Request as unknown as typeof http.IncomingMessage,
    ServerResponse: Response as unknown as typeof http.ServerResponse,
  };
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
