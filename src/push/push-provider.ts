import type { DeviceKindCode } from './push-device.entity';

/** The device a notification goes to (a push_device_token row). */
export interface PushTarget {
  /** push_device_token.id, the only device identifier that may be logged. */
  id: string;
  userId: number;
  kind: DeviceKindCode;
  token: string;
  /** APNs topic (the iOS bundle id); null for FCM devices. */
  iosAppId: string | null;
}

/** An APNs request: the JSON body (`aps` + our `zulip` dict) and the headers that vary per notification. */
export interface ApnsNotification {
  body: { aps: Record<string, unknown>; zulip: Record<string, unknown> };
  /** apns-priority: 10 = deliver now, 5 = may be delayed (power considerations). */
  priority: 10 | 5;
  /** Seconds after which APNs stops trying to deliver (apns-expiration = now + this). */
  timeToLiveSeconds: number;
}

/** An FCM HTTP v1 data-only message: every value is a string (the API requires it). */
export interface FcmNotification {
  data: Record<string, string>;
  priority: 'high' | 'normal';
}

/** One notification for one user, in both providers' shapes; each provider takes its own. */
export interface PushPayload {
  apns: ApnsNotification;
  fcm: FcmNotification;
}

/** What a provider made of one send. */
export type SendResult =
  | { outcome: 'delivered' }
  /** The token is dead (uninstalled app, expired or malformed token): remove the device. */
  | { outcome: 'invalid_token'; reason: string }
  /** Worth trying again later (rate limit, provider or network trouble). */
  | { outcome: 'retry'; reason: string; retryAfterMs?: number }
  /** Will never succeed as sent (bad payload, misconfigured credentials); not the token's fault. */
  | { outcome: 'failed'; reason: string };

/** A push notification service (APNs, FCM) behind one interface. */
export abstract class PushProvider {
  abstract readonly name: string;
  abstract readonly kind: DeviceKindCode;

  /** Sends one notification; never throws (errors become `retry` or `failed`). */
  abstract send(device: PushTarget, payload: PushPayload): Promise<SendResult>;

  /** Closes connections; called once, after the last send has settled or been abandoned. */
  async close(): Promise<void> {}
}

/** Seconds (`Retry-After: 120`) or an HTTP date, as milliseconds from `now`; undefined if absent or unusable. */
export function parseRetryAfter(value: string | string[] | null | undefined, now = Date.now()): number | undefined {
  const raw = Array.isArray(value) ? value[0] : value;
  if (raw === undefined || raw === null || raw.trim() === '') return undefined;
  if (/^\d+$/.test(raw.trim())) return Number(raw.trim()) * 1000;
  const at = Date.parse(raw);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
