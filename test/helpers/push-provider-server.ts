/**
 * Our own stand-ins for Apple's and Google's push services, on 127.0.0.1 (random ports):
 *
 * - APNs over cleartext HTTP/2 (h2c): checks the ES256 provider token against the public key of
 *   the key pair generated here, and the headers Apple requires; records every request.
 * - FCM over HTTP/1.1: an OAuth2 token endpoint checking the RS256 JWT-bearer assertion, and the
 *   HTTP v1 messages:send endpoint checking the access token and the message; records bodies.
 *
 * Failures can be scripted per device token (status, reason, Retry-After, how many times).
 * `env()` gives the configuration variables that point the server's providers here.
 */
import { createPublicKey, generateKeyPairSync, KeyObject, randomBytes, verify } from 'node:crypto';
import * as http from 'node:http';
import * as http2 from 'node:http2';
import type { AddressInfo } from 'node:net';

export const APNS_KEY_ID = 'TESTKEY123';
export const APNS_TEAM_ID = 'TEAM456789';
export const FCM_PROJECT = 'zulip-push-test';
export const FCM_CLIENT_EMAIL = 'push-sender@zulip-push-test.iam.gserviceaccount.com';

/** An APNs request body as sent (undefined when it was not JSON). */
export interface ApnsBody {
  aps: Record<string, unknown>;
  zulip: Record<string, unknown>;
}

/** An FCM HTTP v1 request body as sent. */
export interface FcmBody {
  message: { token: string; data: Record<string, string>; android: { priority: string }; notification?: unknown };
}

export interface ApnsRequest {
  token: string;
  headers: Record<string, string>;
  body: ApnsBody;
  status: number;
}

export interface FcmRequest {
  token: string;
  body: FcmBody;
  status: number;
}

type JsonObject = Record<string, unknown>;

/** A JSON value as text, for messages. */
const show = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v));

export interface ApnsFailure {
  status: number;
  reason?: string;
  retryAfter?: string;
  /** How many requests get this answer (default: all). */
  times?: number;
}

export interface FcmFailure {
  status: number;
  /** google.rpc status, e.g. UNAVAILABLE, NOT_FOUND, INVALID_ARGUMENT. */
  errorStatus: string;
  /** FcmError errorCode, e.g. UNREGISTERED. */
  errorCode?: string;
  message?: string;
  /** A google.rpc.BadRequest field violation, e.g. message.token. */
  field?: string;
  retryAfter?: string;
  times?: number;
}

interface Scripted<T> {
  failure: T;
  left: number;
}

function decodeJwt(
  jwt: string,
): { header: JsonObject; claims: JsonObject; input: string; signature: Buffer } | undefined {
  const parts = jwt.split('.');
  if (parts.length !== 3) return undefined;
  try {
    return {
      header: JSON.parse(Buffer.from(parts[0], 'base64url').toString('utf8')) as JsonObject,
      claims: JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8')) as JsonObject,
      input: `${parts[0]}.${parts[1]}`,
      signature: Buffer.from(parts[2], 'base64url'),
    };
  } catch {
    return undefined;
  }
}

function take<T>(scripts: Map<string, Scripted<T>>, token: string): T | undefined {
  const s = scripts.get(token);
  if (!s || s.left <= 0) return undefined;
  s.left--;
  return s.failure;
}

export class PushProviderServer {
  readonly apnsRequests: ApnsRequest[] = [];
  readonly fcmRequests: FcmRequest[] = [];
  /** Access tokens handed out by the token endpoint. */
  readonly accessTokens: string[] = [];
  /** Everything a request got wrong (bad JWT, missing header, …); tests expect it to stay empty. */
  readonly problems: string[] = [];

  private readonly apnsFailures = new Map<string, Scripted<ApnsFailure>>();
  private readonly fcmFailures = new Map<string, Scripted<FcmFailure>>();
  private readonly apnsPublicKey: KeyObject;
  private readonly fcmPublicKey: KeyObject;
  private readonly apnsKeyPem: string;
  private readonly fcmKeyPem: string;
  private apnsServer!: http2.Http2Server;
  private fcmServer!: http.Server;
  private apnsSessions = new Set<http2.ServerHttp2Session>();
  apnsUrl = '';
  fcmUrl = '';

  private constructor() {
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    this.apnsPublicKey = ec.publicKey;
    this.apnsKeyPem = ec.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
    this.fcmPublicKey = createPublicKey(rsa.privateKey);
    this.fcmKeyPem = rsa.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
  }

  static async start(): Promise<PushProviderServer> {
    const s = new PushProviderServer();
    await s.listen();
    return s;
  }

  get tokenUrl(): string {
    return `${this.fcmUrl}/token`;
  }

  /** Configuration variables for startTestApp / loadConfig. */
  env(): Record<string, string> {
    return { ...this.apnsEnv(), ...this.fcmEnv() };
  }

  apnsEnv(): Record<string, string> {
    return { APNS_KEY: this.apnsKeyPem, APNS_KEY_ID: APNS_KEY_ID, APNS_TEAM_ID: APNS_TEAM_ID, APNS_URL: this.apnsUrl };
  }

  fcmEnv(): Record<string, string> {
    return {
      FCM_CREDENTIALS: JSON.stringify({
        type: 'service_account',
        project_id: FCM_PROJECT,
        private_key_id: 'test-key-1',
        private_key: this.fcmKeyPem,
        client_email: FCM_CLIENT_EMAIL,
        token_uri: this.tokenUrl,
      }),
      FCM_URL: this.fcmUrl,
    };
  }

  failApns(token: string, failure: ApnsFailure): void {
    this.apnsFailures.set(token, { failure, left: failure.times ?? Infinity });
  }

  failFcm(token: string, failure: FcmFailure): void {
    this.fcmFailures.set(token, { failure, left: failure.times ?? Infinity });
  }

  /** Forget recorded requests, problems and scripted failures (access tokens stay valid). */
  reset(): void {
    this.apnsRequests.length = 0;
    this.fcmRequests.length = 0;
    this.problems.length = 0;
    this.apnsFailures.clear();
    this.fcmFailures.clear();
  }

  /** Closes every APNs connection (as Apple does now and then); clients must reconnect. */
  dropApnsConnections(): void {
    for (const session of this.apnsSessions) session.destroy();
  }

  async close(): Promise<void> {
    for (const session of this.apnsSessions) session.destroy();
    await Promise.all([
      new Promise<void>((resolve) => this.apnsServer.close(() => resolve())),
      new Promise<void>((resolve) => {
        this.fcmServer.closeAllConnections();
        this.fcmServer.close(() => resolve());
      }),
    ]);
  }

  private async listen(): Promise<void> {
    this.apnsServer = http2.createServer();
    this.apnsServer.on('session', (session) => {
      this.apnsSessions.add(session);
      session.on('close', () => this.apnsSessions.delete(session));
    });
    this.apnsServer.on('stream', (stream, headers) => this.onApns(stream, headers));
    this.fcmServer = http.createServer((req, res) => this.onFcm(req, res));
    await Promise.all([
      new Promise<void>((resolve) => this.apnsServer.listen(0, '127.0.0.1', resolve)),
      new Promise<void>((resolve) => this.fcmServer.listen(0, '127.0.0.1', resolve)),
    ]);
    this.apnsUrl = `http://127.0.0.1:${(this.apnsServer.address() as AddressInfo).port}`;
    this.fcmUrl = `http://127.0.0.1:${(this.fcmServer.address() as AddressInfo).port}`;
  }

  // ---- APNs ----

  /** Why Apple would refuse this provider token, or undefined. */
  private apnsAuthProblem(authorization: string | undefined): string | undefined {
    const m = /^bearer (.+)$/.exec(authorization ?? '');
    const jwt = m ? decodeJwt(m[1]) : undefined;
    if (!jwt) return 'missing or malformed provider token';
    if (jwt.header.alg !== 'ES256') return `alg ${show(jwt.header.alg)}`;
    if (jwt.header.kid !== APNS_KEY_ID) return `kid ${show(jwt.header.kid)}`;
    if (jwt.claims.iss !== APNS_TEAM_ID) return `iss ${show(jwt.claims.iss)}`;
    const age = Date.now() / 1000 - Number(jwt.claims.iat);
    if (!Number.isFinite(age) || age > 3600 || age < -60) return `iat ${show(jwt.claims.iat)}`;
    const ok = verify(
      'sha256',
      Buffer.from(jwt.input),
      { key: this.apnsPublicKey, dsaEncoding: 'ieee-p1363' },
      jwt.signature,
    );
    return ok ? undefined : 'bad signature';
  }

  private onApns(stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders): void {
    let raw = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => (raw += chunk));
    stream.on('error', () => {});
    stream.on('end', () => {
      const reply = (status: number, reason?: string, extra: Record<string, string> = {}) => {
        if (stream.destroyed || stream.closed) return;
        stream.respond({ ':status': status, 'apns-id': String(headers['apns-id'] ?? ''), ...extra });
        stream.end(reason ? JSON.stringify({ reason }) : undefined);
      };
      const path = String(headers[':path'] ?? '');
      const m = /^\/3\/device\/([^/?]+)$/.exec(path);
      if (headers[':method'] !== 'POST' || !m) {
        this.problems.push(`APNs: ${headers[':method']} ${path}`);
        return reply(404, 'BadPath');
      }
      const token = decodeURIComponent(m[1]);
      const flat: Record<string, string> = {};
      for (const [k, v] of Object.entries(headers)) if (!k.startsWith(':')) flat[k] = String(v);
      let body: ApnsBody;
      try {
        body = JSON.parse(raw) as ApnsBody;
      } catch {
        body = undefined as unknown as ApnsBody;
      }
      const record = (status: number) => this.apnsRequests.push({ token, headers: flat, body, status });

      const auth = this.apnsAuthProblem(flat.authorization);
      if (auth) {
        this.problems.push(`APNs auth: ${auth}`);
        record(403);
        return reply(403, 'InvalidProviderToken');
      }
      const headerProblem =
        (!flat['apns-topic'] && 'MissingTopic') ||
        (!['alert', 'background'].includes(flat['apns-push-type']) && 'InvalidPushType') ||
        (!['5', '10'].includes(flat['apns-priority']) && 'BadPriority') ||
        (!/^\d+$/.test(flat['apns-expiration'] ?? '') && 'BadExpirationDate') ||
        (!(body && typeof body === 'object' && body.aps && typeof body.aps === 'object') && 'PayloadEmpty') ||
        (Buffer.byteLength(raw) > 4096 && 'PayloadTooLarge');
      if (headerProblem) {
        this.problems.push(`APNs: ${headerProblem}`);
        record(400);
        return reply(400, headerProblem);
      }
      const failure = take(this.apnsFailures, token);
      if (failure) {
        record(failure.status);
        return reply(failure.status, failure.reason, failure.retryAfter ? { 'retry-after': failure.retryAfter } : {});
      }
      record(200);
      reply(200);
    });
  }

  // ---- FCM ----

  private onFcm(req: http.IncomingMessage, res: http.ServerResponse): void {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (raw += chunk));
    req.on('end', () => {
      const json = (status: number, body: unknown, headers: Record<string, string> = {}) => {
        res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8', ...headers });
        res.end(JSON.stringify(body));
      };
      if (req.method === 'POST' && req.url === '/token') return this.onToken(raw, json);
      const m = /^\/v1\/projects\/([^/]+)\/messages:send$/.exec(req.url ?? '');
      if (req.method !== 'POST' || !m) {
        this.problems.push(`FCM: ${req.method} ${req.url}`);
        return json(404, { error: { code: 404, message: 'Not found', status: 'NOT_FOUND' } });
      }
      if (m[1] !== FCM_PROJECT) this.problems.push(`FCM: project ${m[1]}`);
      const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
      if (!bearer || !this.accessTokens.includes(bearer)) {
        this.problems.push('FCM: missing or unknown access token');
        return json(401, {
          error: { code: 401, message: 'Request had invalid authentication', status: 'UNAUTHENTICATED' },
        });
      }
      let body: FcmBody;
      try {
        body = JSON.parse(raw) as FcmBody;
      } catch {
        this.problems.push('FCM: body is not JSON');
        return json(400, { error: { code: 400, message: 'Invalid JSON payload', status: 'INVALID_ARGUMENT' } });
      }
      const message = body?.message as Partial<FcmBody['message']> | undefined;
      const token = typeof message?.token === 'string' ? message.token : '';
      const record = (status: number) => this.fcmRequests.push({ token, body, status });
      const data = message?.data;
      const problem =
        (!token && 'no message.token') ||
        (!data || typeof data !== 'object' ? 'no message.data' : undefined) ||
        (Object.values(data ?? {}).some((v) => typeof v !== 'string') && 'message.data values must be strings') ||
        (!['high', 'normal'].includes(message?.android?.priority ?? '') && 'bad android.priority') ||
        (message?.notification !== undefined && 'Zulip sends data-only messages');
      if (problem) {
        this.problems.push(`FCM: ${problem}`);
        record(400);
        return json(400, { error: { code: 400, message: problem, status: 'INVALID_ARGUMENT' } });
      }
      const failure = take(this.fcmFailures, token);
      if (failure) {
        record(failure.status);
        const details: unknown[] = [];
        if (failure.errorCode) {
          details.push({
            '@type': 'type.googleapis.com/google.firebase.fcm.v1.FcmError',
            errorCode: failure.errorCode,
          });
        }
        if (failure.field) {
          details.push({
            '@type': 'type.googleapis.com/google.rpc.BadRequest',
            fieldViolations: [{ field: failure.field, description: 'Invalid registration token' }],
          });
        }
        return json(
          failure.status,
          {
            error: {
              code: failure.status,
              message: failure.message ?? failure.errorStatus,
              status: failure.errorStatus,
              details,
            },
          },
          failure.retryAfter ? { 'retry-after': failure.retryAfter } : {},
        );
      }
      record(200);
      json(200, { name: `projects/${FCM_PROJECT}/messages/${randomBytes(8).toString('hex')}` });
    });
  }

  private onToken(raw: string, json: (status: number, body: unknown) => void): void {
    const form = new URLSearchParams(raw);
    const refuse = (why: string) => {
      this.problems.push(`FCM token: ${why}`);
      json(400, { error: 'invalid_grant', error_description: why });
    };
    if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer') return refuse('grant_type');
    const jwt = decodeJwt(form.get('assertion') ?? '');
    if (!jwt) return refuse('malformed assertion');
    if (jwt.header.alg !== 'RS256') return refuse(`alg ${show(jwt.header.alg)}`);
    if (!verify('sha256', Buffer.from(jwt.input), this.fcmPublicKey, jwt.signature)) return refuse('bad signature');
    const c = jwt.claims;
    const now = Date.now() / 1000;
    if (c.iss !== FCM_CLIENT_EMAIL) return refuse(`iss ${show(c.iss)}`);
    if (c.aud !== this.tokenUrl) return refuse(`aud ${show(c.aud)}`);
    const scopes = typeof c.scope === 'string' ? c.scope.split(' ') : [];
    if (!scopes.includes('https://www.googleapis.com/auth/firebase.messaging')) return refuse(`scope ${show(c.scope)}`);
    const exp = Number(c.exp);
    const iat = Number(c.iat);
    if (!(exp > now && exp - iat <= 3600 && iat <= now + 60)) return refuse('bad iat/exp');
    const token = `ya29.${randomBytes(16).toString('hex')}`;
    this.accessTokens.push(token);
    json(200, { access_token: token, expires_in: 3599, token_type: 'Bearer' });
  }
}
