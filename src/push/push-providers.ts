import type { AppConfig } from '../common/config/config';
import { ApnsProvider } from './apns.provider';
import { FcmProvider } from './fcm.provider';
import type { PushProvider } from './push-provider';

/** Injection token: the configured providers (empty = push is off). */
export const PUSH_PROVIDERS = Symbol('PUSH_PROVIDERS');

/** One provider per configured service, from the parsed configuration. */
export function createPushProviders(config: Pick<AppConfig, 'push'>): PushProvider[] {
  const { apns, fcm, requestTimeoutMs } = config.push;
  const providers: PushProvider[] = [];
  if (apns) providers.push(new ApnsProvider(apns, { requestTimeoutMs }));
  if (fcm) providers.push(new FcmProvider(fcm, { requestTimeoutMs }));
  return providers;
}
