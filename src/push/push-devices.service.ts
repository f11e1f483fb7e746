import { Injectable } from '@nestjs/common';
import type { UserProfile } from '../users/user.entity';
import { DeviceKind } from './push-device.entity';
import { PushDevicesRepository } from './push-devices.repository';
import { PushErrors } from './push.errors';

export const MAX_TOKEN_LENGTH = 4096;

/** Zulip's validate_token: length for every kind; APNs tokens must be hex bytes. */
export function validateToken(token: string, kind: number): void {
  if (token === '' || token.length > MAX_TOKEN_LENGTH) throw PushErrors.invalidTokenLength();
  if (kind === DeviceKind.APNS && !/^(?:[0-9a-fA-F]{2})+$/.test(token)) {
    throw PushErrors.invalidApnsToken();
  }
  // PostgreSQL text cannot hold NUL; no real FCM token contains one.
  if (token.includes('\u0000')) throw PushErrors.invalidFcmToken();
}

/** Device tokens for push notifications (zerver/views/push_notifications.py). */
@Injectable()
export class PushDevicesService {
  constructor(private readonly devices: PushDevicesRepository) {}

  async addToken(user: UserProfile, kind: number, token: string, appId: string | null): Promise<void> {
    validateToken(token, kind);
    await this.devices.upsert(user.id, kind, token, appId);
  }

  async removeToken(user: UserProfile, kind: number, token: string): Promise<void> {
    validateToken(token, kind);
    if (!(await this.devices.remove(user.id, kind, token))) throw PushErrors.tokenDoesNotExist();
  }
}
