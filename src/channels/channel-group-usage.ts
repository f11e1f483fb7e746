import { Injectable, OnModuleInit } from '@nestjs/common';
import { GroupUsage } from '../users/group-usage';
import { ChannelsRepository } from './channels.repository';

/** Fills users' `GroupUsage` slot at start-up: which channels' settings use a group. */
@Injectable()
export class ChannelGroupUsageProvider implements OnModuleInit {
  constructor(
    private readonly slot: GroupUsage,
    private readonly channels: ChannelsRepository,
  ) {}

  onModuleInit(): void {
    this.slot.provideChannelUsage((realmId, groupIds) =>
      this.channels.activeChannelsUsingSettingValues(realmId, groupIds),
    );
  }
}
