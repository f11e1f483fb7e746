import type { Server } from 'node:http';
import type { Duplex, Writable } from 'node:stream';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { Errors, ZulipError } from '../errors/zulip-error';

/**
 * Limits on what a client may send before it is known, and answers in Zulip's envelope when it
 * sends more:
 *
 * - the request head (request line + headers) is read up to MAX_HEADER_BYTES; beyond that, and
 *   for anything Node's HTTP parser refuses, the 'clientError' handler answers a JSON 431/400/408
 *   instead of Node's empty reply;
 * - a body is refused (413) by its Content-Length before a byte of it is read, and by counted
 *   bytes when it comes chunked: form bodies by their parsers (body-parser counts; multipart
 *   through {@link countMultipartBytes}), bodies of any other type are read and discarded here
 *   before the route runs, so every answer goes out after the request was consumed;
 * - after an early answer (413, 401 before an upload was read, …) the rest of the body is read
 *   and dropped for a while, as nginx's lingering close does, so that the client is still
 *   listening when the answer arrives instead of seeing a reset; then the connection is closed.
 */

/** Largest request head. Node's default is 16 KiB; long GET narrows and id lists need more. */
export const MAX_HEADER_BYTES = 64 * 1024;

/** After an early answer, keep reading the rest of the body for at most this long… */
export const LINGER_TOTAL_MS = 30_000;
/** …and give up sooner when the client sends nothing for this long (nginx: 30 s and 5 s). */
export const LINGER_IDLE_MS = 5_000;

export const headersTooLarge = Errors.headersTooLarge;
const malformedRequest = Errors.malformedHttpRequest;
const requestTimeout = Errors.requestTimeout;

function rawResponse(error: ZulipError, reason: string): string {
  const body = JSON.stringify(error.toBody());
  return (
    `HTTP/1.1 ${error.status} ${reason}\r\n` +
    'Content-Type: application/json\r\n' +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    'Connection: close\r\n\r\n' +
    body
  );
}

function clientErrorResponse(code: string | undefined): string {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return rawResponse(headersTooLarge(), 'Request Header Fields Too Large');
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return rawResponse(Errors.payloadTooLarge(), 'Payload Too Large');
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return rawResponse(requestTimeout(), 'Request Timeout');
    case undefined:
    default:
      return rawResponse(malformedRequest(), 'Bad Request');
  }
}

/** Reads and drops what the client still sends, then closes (see LINGER_*). */
function lingerThenClose(socket: Duplex): void {
  const close = () => socket.destroy();
  const total = setTimeout(close, LINGER_TOTAL_MS);
  let idle = setTimeout(close, LINGER_IDLE_MS);
  total.unref();
  idle.unref();
  socket.on('data', () => {
    clearTimeout(idle);
    idle = setTimeout(close, LINGER_IDLE_MS);
    idle.unref();
  });
  socket.once('end', close);
  socket.once('close', () => {
    clearTimeout(total);
    clearTimeout(idle);
  });
  socket.resume();
}

const answeredSockets = new WeakSet<Duplex>();

/**
 * Requests Node's parser refuses (head too large, malformed, timed out) get a JSON answer
 * instead of a bare status line; the connection is then closed after a lingering read.
 */
function onClientError(err: Error & { code?: string }, socket: Duplex): void {
  if (answeredSockets.has(socket)) return;
  answeredSockets.add(socket);
  // A response already under way on this connection cannot be followed by another one.
  const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (err.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  // The HTTP parser is done with this connection: stop feeding it, answer, and linger.
  socket.removeAllListeners('data');
  socket.on('error', () => undefined);
  socket.end(clientErrorResponse(err.code));
  lingerThenClose(socket);
}

/** Head-size limit and JSON answers for requests Node's HTTP parser refuses. */
export function installHttpServerLimits(server: Server): void {
  // Node reads this property for every new connection (the constructor option sets it too).
  (server as Server & { maxHeaderSize?: number }).maxHeaderSize = MAX_HEADER_BYTES;
  server.on('clientError', onClientError);
}

/** Whether the request announces a body (RFC 9112 §6.3: Transfer-Encoding or Content-Length). */
function hasBody(req: Request): boolean {
  return req.headers['transfer-encoding'] !== undefined || req.headers['content-length'] !== undefined;
}

/** The body's length announced by Content-Length (undefined when chunked or absent). */
export function declaredLength(req: Request): number | undefined {
  const header = req.headers['content-length'];
  if (header === undefined || req.headers['transfer-encoding'] !== undefined) return undefined;
  const n = Number(header);
  return Number.isFinite(n) ? n : undefined;
}

/**
 * If the answer goes out before the whole body arrived, read and drop the rest for a while
 * (the client is still sending and would otherwise see a reset instead of the answer).
 */
function lingerAfterEarlyAnswer(req: Request, res: Response): void {
  res.once('finish', () => {
    if (req.complete || req.destroyed) return;
    const socket = req.socket;
    const close = () => socket.destroy();
    const total = setTimeout(close, LINGER_TOTAL_MS);
    let idle = setTimeout(close, LINGER_IDLE_MS);
    total.unref();
    idle.unref();
    const done = () => {
      clearTimeout(total);
      clearTimeout(idle);
    };
    req.on('data', () => {
      clearTimeout(idle);
      idle = setTimeout(close, LINGER_IDLE_MS);
      idle.unref();
    });
    req.once('end', done);
    req.once('close', done);
    req.resume();
  });
}

export interface BodyLimitOptions {
  /** Largest body accepted for this request, in bytes. */
  limitFor(req: Request): number;
  /** Whether a parser that counts bytes itself reads this request's body (form bodies, uploads). */
  parsedLater(req: Request): boolean;
}

/**
 * The first middleware: refuses an announced over-limit body with a 413 before reading it,
 * lingers after early answers, and consumes (counting) bodies that no parser reads, so that
 * they are refused when too large and never answered while still arriving.
 */
export function limitRequestBodies(options: BodyLimitOptions): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    if (!hasBody(req)) return next();
    lingerAfterEarlyAnswer(req, res);
    const limit = options.limitFor(req);
    const declared = declaredLength(req);
    if (declared !== undefined && declared > limit) return next(Errors.payloadTooLarge());
    if (options.parsedLater(req)) return next();
    let seen = 0;
    let settled = false;
    const settle = (err?: unknown) => {
      if (settled) return;
      settled = true;
      next(err);
    };
    req.on('data', (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > limit) settle(Errors.payloadTooLarge());
    });
    req.once('end', () => settle());
    req.once('error', () => settle(Errors.malformedBody()));
  };
}

const MULTIPART_LIMIT = Symbol('zulip:multipart-limit');

interface MultipartLimit {
  limit: number;
  onOverflow: () => void;
}

/**
 * Runs a multer middleware on the request with a cap on the body's total size (multer bounds
 * each field and the number of parts, but not their sum). When the cap is passed, the parse is
 * aborted (multer removes what it stored) and `next` gets a 413 at once.
 */
export function parseMultipartWithin(
  parser: RequestHandler,
  limit: number,
  req: Request,
  res: Response,
  next: (err?: unknown) => void,
): void {
  let settled = false;
  const settle = (err?: unknown) => {
    if (settled) return;
    settled = true;
    next(err);
  };
  (req as Request & { [MULTIPART_LIMIT]?: MultipartLimit })[MULTIPART_LIMIT] = {
    limit,
    onOverflow: () => settle(Errors.payloadTooLarge()),
  };
  void parser(req, res, settle);
}

/**
 * multer's `streamHandler`: pipes the request into busboy, counting bytes against the limit
 * {@link parseMultipartWithin} set for the request.
 */
export function countMultipartBytes(req: Request, busboy: Writable): void {
  const cap = (req as Request & { [MULTIPART_LIMIT]?: MultipartLimit })[MULTIPART_LIMIT];
  if (cap) {
    let seen = 0;
    const count = (chunk: Buffer) => {
      seen += chunk.length;
      if (seen <= cap.limit) return;
      req.off('data', count);
      req.unpipe(busboy);
      busboy.destroy(Errors.payloadTooLarge());
      cap.onOverflow();
    };
    req.on('data', count);
  }
  req.pipe(busboy);
}
