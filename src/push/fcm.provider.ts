import { createPrivateKey, KeyObject } from 'node:crypto';
import type { FcmConfig } from '../common/config/config';
import { signJwt } from './jwt';
import { DeviceKind } from './push-device.entity';
import { parseRetryAfter, PushPayload, PushProvider, PushTarget, SendResult } from './push-provider';

const SCOPE = 'https://www.googleapis.com/auth/firebase.messaging';
/** An access token is renewed this long before Google says it expires. */
const EXPIRY_MARGIN_MS = 60_000;

export interface FcmProviderOptions {
  requestTimeoutMs: number;
  now?: () => number;
}

interface GoogleError {
  error?: {
    code?: number;
    message?: string;
    status?: string;
    details?: Array<{ '@type'?: string; errorCode?: string; fieldViolations?: Array<{ field?: string }> }>;
  };
}

/** Thrown while getting an access token; carries how the send should end. */
class TokenError extends Error {
  constructor(readonly result: SendResult) {
    super(result.outcome);
  }
}

/**
 * Firebase Cloud Messaging, HTTP v1 API, with a service account: an RS256 assertion is exchanged
 * at the account's token_uri (OAuth 2.0 JWT bearer grant) for an access token, cached until shortly
 * before it expires and shared by concurrent sends. Messages are data-only with Android priority,
 * as Zulip sends them.
 */
export class FcmProvider extends PushProvider {
  readonly name = 'FCM';
  readonly kind = DeviceKind.FCM;
  private readonly key: KeyObject;
  private readonly now: () => number;
  private accessToken: { token: string; expiresAt: number } | undefined;
  private pendingToken: Promise<string> | undefined;
  private readonly controllers = new Set<AbortController>();

  constructor(
    private readonly config: FcmConfig,
    private readonly options: FcmProviderOptions,
  ) {
    super();
    this.key = createPrivateKey(config.privateKeyPem);
    this.now = options.now ?? Date.now;
  }

  async send(device: PushTarget, payload: PushPayload): Promise<SendResult> {
    let token: string;
    try {
      token = await this.getAccessToken();
    } catch (err) {
      if (err instanceof TokenError) return err.result;
      return { outcome: 'retry', reason: `token endpoint: ${(err as Error).message}` };
    }
    const url = `${this.config.url}/v1/projects/${encodeURIComponent(this.config.projectId)}/messages:send`;
    const message = {
      message: { token: device.token, data: payload.fcm.data, android: { priority: payload.fcm.priority } },
    };
    let res: Response;
    let text: string;
    try {
      ({ res, text } = await this.post(url, JSON.stringify(message), {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json; charset=utf-8',
      }));
    } catch (err) {
      return { outcome: 'retry', reason: `messages:send: ${(err as Error).message}` };
    }
    if (res.ok) return { outcome: 'delivered' };
    return this.interpret(res, text);
  }

  private interpret(res: Response, text: string): SendResult {
    let body: GoogleError = {};
    try {
      body = JSON.parse(text) as GoogleError;
    } catch {
      // Not JSON: decide on the status alone.
    }
    const status = body.error?.status ?? `HTTP ${res.status}`;
    const details = body.error?.details ?? [];
    const errorCode = details.find((d) => d.errorCode)?.errorCode ?? status;
    const reason = errorCode === status ? status : `${status}/${errorCode}`;
    const retryAfterMs = parseRetryAfter(res.headers.get('retry-after'), this.now());

    if (errorCode === 'UNREGISTERED' || res.status === 404) return { outcome: 'invalid_token', reason };
    if (errorCode === 'INVALID_ARGUMENT' || status === 'INVALID_ARGUMENT') {
      // INVALID_ARGUMENT is about the token only when Google says so (a field violation on
      // message.token, or its message naming the registration token); otherwise it is the payload.
      const aboutToken =
        details.some((d) => d.fieldViolations?.some((v) => v.field === 'message.token')) ||
        /registration token/i.test(body.error?.message ?? '');
      return aboutToken ? { outcome: 'invalid_token', reason } : { outcome: 'failed', reason };
    }
    if (res.status === 401) {
      this.accessToken = undefined;
      return { outcome: 'retry', reason, retryAfterMs };
    }
    if (res.status === 429 || res.status >= 500) return { outcome: 'retry', reason, retryAfterMs };
    return { outcome: 'failed', reason };
  }

  /** A cached access token, or one fetched once for all concurrent callers. */
  private getAccessToken(): Promise<string> {
    if (this.accessToken && this.now() < this.accessToken.expiresAt - EXPIRY_MARGIN_MS) {
      return Promise.resolve(this.accessToken.token);
    }
    this.pendingToken ??= this.fetchAccessToken().finally(() => {
      this.pendingToken = undefined;
    });
    return this.pendingToken;
  }

  private async fetchAccessToken(): Promise<string> {
    const iat = Math.floor(this.now() / 1000);
    const assertion = signJwt(
      'RS256',
      this.key,
      { iss: this.config.clientEmail, scope: SCOPE, aud: this.config.tokenUri, iat, exp: iat + 3600 },
      this.config.privateKeyId ? { kid: this.config.privateKeyId } : {},
    );
    const form = new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion });
    const { res, text } = await this.post(this.config.tokenUri, form.toString(), {
      'content-type': 'application/x-www-form-urlencoded',
    });
    if (!res.ok) {
      let error = `HTTP ${res.status}`;
      try {
        const body = JSON.parse(text) as { error?: unknown; error_description?: unknown };
        if (typeof body.error === 'string') error = body.error;
      } catch {
        // keep the status
      }
      const reason = `token endpoint: ${error}`;
      // Bad credentials (invalid_grant, unauthorized_client) will not fix themselves.
      throw new TokenError(
        res.status === 429 || res.status >= 500
          ? { outcome: 'retry', reason, retryAfterMs: parseRetryAfter(res.headers.get('retry-after'), this.now()) }
          : { outcome: 'failed', reason },
      );
    }
    const body = JSON.parse(text) as { access_token?: unknown; expires_in?: unknown };
    if (typeof body.access_token !== 'string') throw new Error('no access_token in the answer');
    const expiresIn = typeof body.expires_in === 'number' ? body.expires_in : 3600;
    this.accessToken = { token: body.access_token, expiresAt: this.now() + expiresIn * 1000 };
    return body.access_token;
  }

  /** POST with a timeout; close() aborts what is still running. */
  private async post(url: string, body: string, headers: Record<string, string>) {
    const controller = new AbortController();
    this.controllers.add(controller);
    const timer = setTimeout(
      () => controller.abort(new Error(`no answer within ${this.options.requestTimeoutMs} ms`)),
      this.options.requestTimeoutMs,
    );
    try {
      const res = await fetch(url, { method: 'POST', body, headers, signal: controller.signal });
      const text = await res.text();
      return { res, text };
    } finally {
      clearTimeout(timer);
      this.controllers.delete(controller);
    }
  }

  override async close(): Promise<void> {
    for (const c of this.controllers) c.abort(new Error('provider closed'));
  }
}
