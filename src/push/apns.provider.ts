import { createPrivateKey, KeyObject, randomUUID } from 'node:crypto';
import * as http2 from 'node:http2';
import type { ApnsConfig } from '../common/config/config';
import { signJwt } from './jwt';
import { DeviceKind } from './push-device.entity';
import { parseRetryAfter, PushPayload, PushProvider, PushTarget, SendResult } from './push-provider';

/** Apple accepts a provider token for an hour and refuses refreshes more often than every 20 minutes. */
const TOKEN_REFRESH_MS = 50 * 60 * 1000;
/** An idle connection is closed after this long (APNs itself drops idle connections eventually). */
const SESSION_IDLE_MS = 5 * 60 * 1000;

/** APNs reasons meaning the token will never work again (Zulip removes the device for these). */
const DEAD_TOKEN_REASONS = new Set(['BadDeviceToken', 'DeviceTokenNotForTopic', 'Unregistered', 'ExpiredToken']);

export interface ApnsProviderOptions {
  requestTimeoutMs: number;
  now?: () => number;
}

/**
 * Apple Push Notification service over HTTP/2 with token-based authentication: an ES256 JWT
 * (iss = team id, kid = key id) signed with the .p8 key, cached and re-signed every 50 minutes.
 * One multiplexed connection, re-opened when it closes or the server sends GOAWAY. An `http://`
 * URL speaks cleartext HTTP/2 (h2c) with prior knowledge, for tests.
 */
export class ApnsProvider extends PushProvider {
  readonly name = 'APNs';
  readonly kind = DeviceKind.APNS;
  private readonly key: KeyObject;
  private readonly now: () => number;
  private jwt: { token: string; issuedAt: number } | undefined;
  private session: http2.ClientHttp2Session | undefined;
  private closed = false;

  constructor(
    private readonly config: ApnsConfig,
    private readonly options: ApnsProviderOptions,
  ) {
    super();
    this.key = createPrivateKey(config.keyPem);
    this.now = options.now ?? Date.now;
  }

  /** The cached provider token, re-signed when older than 50 minutes. */
  providerToken(): string {
    const now = this.now();
    if (!this.jwt || now - this.jwt.issuedAt >= TOKEN_REFRESH_MS) {
      const iat = Math.floor(now / 1000);
      this.jwt = {
        token: signJwt('ES256', this.key, { iss: this.config.teamId, iat }, { kid: this.config.keyId }),
        issuedAt: now,
      };
    }
    return this.jwt.token;
  }

  async send(device: PushTarget, payload: PushPayload): Promise<SendResult> {
    if (this.closed) return { outcome: 'retry', reason: 'provider closed' };
    if (!device.iosAppId) return { outcome: 'failed', reason: 'device has no ios_app_id (APNs topic)' };
    const { body, priority, timeToLiveSeconds } = payload.apns;
    let session: http2.ClientHttp2Session;
    try {
      session = this.connect();
    } catch (err) {
      return { outcome: 'retry', reason: `connection failed: ${(err as Error).message}` };
    }
    const json = JSON.stringify(body);
    const headers: http2.OutgoingHttpHeaders = {
      ':method': 'POST',
      ':path': `/3/device/${encodeURIComponent(device.token)}`,
      authorization: `bearer ${this.providerToken()}`,
      'apns-id': randomUUID(),
      'apns-topic': device.iosAppId,
      'apns-push-type': 'alert',
      'apns-priority': String(priority),
      'apns-expiration': String(Math.floor(this.now() / 1000) + timeToLiveSeconds),
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(json),
    };
    const response = await this.request(session, headers, json);
    if ('error' in response) return { outcome: 'retry', reason: response.error };
    return this.interpret(response.status, response.body, response.retryAfter);
  }

  private interpret(status: number, body: string, retryAfter: string | undefined): SendResult {
    if (status === 200) return { outcome: 'delivered' };
    let reason = `HTTP ${status}`;
    try {
      const parsed = JSON.parse(body) as { reason?: unknown };
      if (typeof parsed.reason === 'string') reason = parsed.reason;
    } catch {
      // Not JSON (a proxy's error page, say): keep the status.
    }
    const retryAfterMs = parseRetryAfter(retryAfter, this.now());
    if (status === 410 || (status === 400 && DEAD_TOKEN_REASONS.has(reason))) {
      return { outcome: 'invalid_token', reason };
    }
    if (status === 403 && reason === 'ExpiredProviderToken') {
      this.jwt = undefined;
      return { outcome: 'retry', reason, retryAfterMs };
    }
    if (status === 429 || status >= 500) return { outcome: 'retry', reason, retryAfterMs };
    return { outcome: 'failed', reason };
  }

  private connect(): http2.ClientHttp2Session {
    if (this.session && !this.session.closed && !this.session.destroyed) return this.session;
    const session = http2.connect(this.config.url);
    const forget = () => {
      if (this.session === session) this.session = undefined;
    };
    // Errors reach the pending requests too; without a listener an 'error' event would crash the process.
    session.on('error', forget);
    session.on('goaway', forget);
    session.on('close', forget);
    session.setTimeout(SESSION_IDLE_MS, () => session.close());
    this.session = session;
    return session;
  }

  private request(
    session: http2.ClientHttp2Session,
    headers: http2.OutgoingHttpHeaders,
    body: string,
  ): Promise<{ status: number; body: string; retryAfter: string | undefined } | { error: string }> {
    return new Promise((resolve) => {
      let status = 0;
      let retryAfter: string | undefined;
      let data = '';
      let settled = false;
      const settle = (value: { status: number; body: string; retryAfter: string | undefined } | { error: string }) => {
        if (settled) return;
        settled = true;
        resolve(value);
      };
      let stream: http2.ClientHttp2Stream;
      try {
        stream = session.request(headers);
      } catch (err) {
        settle({ error: `request failed: ${(err as Error).message}` });
        return;
      }
      stream.setEncoding('utf8');
      stream.setTimeout(this.options.requestTimeoutMs, () => {
        stream.close(http2.constants.NGHTTP2_CANCEL);
        settle({ error: `no answer within ${this.options.requestTimeoutMs} ms` });
      });
      stream.on('response', (h: Record<string, string | string[] | number | undefined>) => {
        status = Number(h[':status']);
        const ra = h['retry-after'] as string | string[] | undefined;
        retryAfter = Array.isArray(ra) ? ra[0] : ra;
      });
      stream.on('data', (chunk: string) => {
        if (data.length < 65_536) data += chunk;
      });
      stream.on('end', () => settle(status ? { status, body: data, retryAfter } : { error: 'stream ended early' }));
      stream.on('close', () => settle(status ? { status, body: data, retryAfter } : { error: 'stream closed' }));
      stream.on('error', (err: Error) => settle({ error: err.message }));
      stream.end(body);
    });
  }

  override async close(): Promise<void> {
    this.closed = true;
    const session = this.session;
    this.session = undefined;
    if (!session || session.destroyed) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        session.destroy();
        resolve();
      }, 1000);
      session.close(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}
