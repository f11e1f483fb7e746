import { Injectable } from '@nestjs/common';
import { Errors } from '../common/errors/zulip-error';
import type { UserProfile } from '../users/user.entity';
import { DeviceKind } from './push-device.entity';
import { PushDevicesRepository } from './push-devices.repository';

export const MAX_TOKEN_LENGTH = 4096;

/** Zulip's validate_token: length for every kind; APNs tokens must be hex bytes. */
export function validateToken(token: string, kind: number): void {
  if (token === '' || token.length > MAX_TOKEN_LENGTH) throw Errors.badRequest('Empty or invalid length token');
  if (kind === DeviceKind.APNS && !/^(?:[0-9a-fA-F]{2})+$/.test(token)) {
    throw Errors.badRequest('Invalid APNS token');
  }
  // PostgreSQL text cannot hold NUL; no real FCM token contains one.
  if (token.includes('\u0000')) throw Errors.badRequest('Invalid FCM token');
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
    if (!(await this.devices.remove(user.id, kind, token))) throw Errors.badRequest('Token does not exist');
  }
}
