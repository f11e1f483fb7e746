import { Injectable } from '@nestjs/common';

/** A channel whose group settings point at a group, and which settings. */
export interface ChannelGroupUsage {
  channelId: number;
  settings: string[];
}

/**
 * Where modules above users use a group in their settings (Zulip's
 * access_user_group_for_deactivation objections). channels owns the channel settings and sits
 * above users (which may not import it), so it fills this slot at start-up (docs/DEVELOPING.md,
 * "Tables and their owners"); without a channels module nothing objects.
 */
@Injectable()
export class GroupUsage {
  private channelsUsing: ((realmId: number, groupIds: number[]) => Promise<ChannelGroupUsage[]>) | null = null;

  /** Called once by channels at start-up. */
  provideChannelUsage(source: (realmId: number, groupIds: number[]) => Promise<ChannelGroupUsage[]>): void {
    this.channelsUsing = source;
  }

  /** Channels (not archived) whose group settings point at one of `groupIds`, by id. */
  activeChannelsUsing(realmId: number, groupIds: number[]): Promise<ChannelGroupUsage[]> {
    if (groupIds.length === 0 || !this.channelsUsing) return Promise.resolve([]);
    return this.channelsUsing(realmId, groupIds);
  }
}
