/**
 * A keep-alive HTTP/1.1 connection on a bare `net` socket, one request at a time, for the event
 * benchmark's long-polls. Node's HTTP client (parser, IncomingMessage, agent bookkeeping) costs
 * tens of µs per response; with 10,000 polls answered at once on a 2-core machine that work ran
 * beside the server's and pushed back the moment a response was seen as arrived. Here a
 * response is timed at the first chunk of its bytes and framed by nothing more than its header
 * block and Content-Length (or chunked encoding), as wrk does for the other workloads.
 */
import net from 'node:net';

export interface RawResponse {
  status: number;
  body: Buffer;
  /** process.hrtime.bigint() when the response's first bytes were read. */
  arrivedAt: bigint;
}

/** A failed request: `retryable` when a reused connection closed before any byte of the answer. */
export class RawHttpError extends Error {
  constructor(
    readonly code: string,
    readonly retryable: boolean,
  ) {
    super(code);
  }
}

interface Pending {
  resolve(r: RawResponse): void;
  reject(e: RawHttpError): void;
  arrivedAt: bigint | null;
  reused: boolean;
}

const HEADER_END = Buffer.from('\r\n\r\n');

export class RawHttpConnection {
  private socket: net.Socket | null = null;
  private buffered: Buffer = Buffer.alloc(0);
  private pending: Pending | null = null;
  /** Responses read on the current socket (a request on a reused socket may meet its close). */
  private served = 0;

  constructor(
    private readonly port: number,
    private readonly host = '127.0.0.1',
  ) {}

  /** GET `path` with `headers`; resolves with the whole response. One request at a time. */
  get(path: string, headers: Record<string, string>): Promise<RawResponse> {
    if (this.pending) return Promise.reject(new RawHttpError('BUSY', false));
    const socket = this.socket ?? this.connect();
    let head = `GET ${path} HTTP/1.1\r\nHost: ${this.host}:${this.port}\r\n`;
    for (const [name, value] of Object.entries(headers)) head += `${name}: ${value}\r\n`;
    return new Promise<RawResponse>((resolve, reject) => {
      this.pending = { resolve, reject, arrivedAt: null, reused: this.served > 0 };
      socket.write(`${head}\r\n`);
    });
  }

  close(): void {
    this.socket?.destroy();
    this.socket = null;
  }

  private connect(): net.Socket {
    const socket = net.connect({ port: this.port, host: this.host });
    socket.setNoDelay(true);
    this.socket = socket;
    this.served = 0;
    this.buffered = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    const gone = (code: string) => {
      if (this.socket === socket) this.socket = null;
      const p = this.pending;
      if (!p) return;
      this.pending = null;
      p.reject(new RawHttpError(code, p.reused && p.arrivedAt === null));
    };
    socket.on('error', (err: NodeJS.ErrnoException) => gone(err.code ?? err.message));
    socket.on('close', () => gone('ECONNRESET'));
    return socket;
  }

  private onData(chunk: Buffer): void {
    const p = this.pending;
    if (p && p.arrivedAt === null) p.arrivedAt = process.hrtime.bigint();
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    if (!p) return;
    const parsed = parseResponse(this.buffered);
    if (!parsed) return;
    this.pending = null;
    this.served++;
    this.buffered = this.buffered.subarray(parsed.length);
    if (parsed.close) this.close();
    p.resolve({ status: parsed.status, body: parsed.body, arrivedAt: p.arrivedAt ?? process.hrtime.bigint() });
  }
}

/** A complete response at the start of `buf` (null: not all of it yet). */
function parseResponse(buf: Buffer): { status: number; body: Buffer; length: number; close: boolean } | null {
  const headerEnd = buf.indexOf(HEADER_END);
  if (headerEnd < 0) return null;
  const lines = buf.toString('latin1', 0, headerEnd).split('\r\n');
  const status = Number(lines[0].split(' ')[1]);
  let contentLength: number | null = null;
  let chunked = false;
  let close = false;
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line
      .slice(colon + 1)
      .trim()
      .toLowerCase();
    if (name === 'content-length') contentLength = Number(value);
    else if (name === 'transfer-encoding') chunked = value.includes('chunked');
    else if (name === 'connection') close = value === 'close';
  }
  const start = headerEnd + HEADER_END.length;
  if (!chunked) {
    const length = contentLength ?? 0;
    if (buf.length < start + length) return null;
    return { status, body: buf.subarray(start, start + length), length: start + length, close };
  }
  const parts: Buffer[] = [];
  let at = start;
  for (;;) {
    const lineEnd = buf.indexOf('\r\n', at);
    if (lineEnd < 0) return null;
    const size = parseInt(buf.toString('latin1', at, lineEnd), 16);
    if (buf.length < lineEnd + 2 + size + 2) return null;
    if (size === 0) {
      // No trailers are sent by the server: the last chunk is followed by the empty line.
      return { status, body: Buffer.concat(parts), length: lineEnd + 4, close };
    }
    parts.push(buf.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
}
