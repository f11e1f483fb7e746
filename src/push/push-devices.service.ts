import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig } from '../common/config/config';
import { runInTransaction } from '../database/transaction';
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
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly devices: PushDevicesRepository,
  ) {}

  /**
   * Registers (or refreshes) the token. A user keeps at most PUSH_DEVICES_PER_USER tokens: past
   * that the least recently registered go (reinstalled apps leave stale tokens behind, and each
   * token is one more push per message in the delivery queue).
   */
  async addToken(user: UserProfile, kind: number, token: string, appId: string | null): Promise<void> {
    validateToken(token, kind);
    await runInTransaction(this.dataSource, async () => {
      await this.devices.lockUser(user.id);
      await this.devices.upsert(user.id, kind, token, appId);
      await this.devices.keepNewest(user.id, this.config.maxPushDevicesPerUser);
    });
  }

  async removeToken(user: UserProfile, kind: number, token: string): Promise<void> {
    validateToken(token, kind);
    if (!(await this.devices.remove(user.id, kind, token))) throw PushErrors.tokenDoesNotExist();
  }
}
