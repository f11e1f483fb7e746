import { Initial1795273649453 } from './1795273649453-Initial';
import { UsersGroupsProfileFields1795273944794 } from './1795273944794-UsersGroupsProfileFields';
import { PushDeviceTokens1795273949745 } from './1795273949745-PushDeviceTokens';
import { Channels1795274009109 } from './1795274009109-Channels';
import { Messaging1795274250846 } from './1795274250846-Messaging';
import { MessageEditHistoryVisibility1795291012000 } from './1795291012000-MessageEditHistoryVisibility';
import { Presence1795644993558 } from './1795644993558-Presence';
import { RealmEmoji1795645131611 } from './1795645131611-RealmEmoji';
import { EmailChangeStatus1795647332460 } from './1795647332460-EmailChangeStatus';
import { BotStorage1795649705577 } from './1795649705577-BotStorage';
import { ScheduledMessages1795655173731 } from './1795655173731-ScheduledMessages';
import { AlertWordsDraftsSnippets1795655178189 } from './1795655178189-AlertWordsDraftsSnippets';
import { LinkifiersPlaygrounds1795655434658 } from './1795655434658-LinkifiersPlaygrounds';
import { ChannelEmailAddress1795656176353 } from './1795656176353-ChannelEmailAddress';
import { RealmAlertWordsVersion1795656453499 } from './1795656453499-RealmAlertWordsVersion';
import { MutedUsers1795657538779 } from './1795657538779-MutedUsers';
import { Submessages1795659019365 } from './1795659019365-Submessages';
import { MissedMessageEmails1795659108894 } from './1795659108894-MissedMessageEmails';
import { Invitation1795659117581 } from './1795659117581-Invitation';
import { RealmSettings1795666154695 } from './1795666154695-RealmSettings';
import { RealmUploadQuota1795677605893 } from './1795677605893-RealmUploadQuota';
import { UserMessagePrivateIndex1795700000000 } from './1795700000000-UserMessagePrivateIndex';
import { UserProfileBotIndex1795700000001 } from './1795700000001-UserProfileBotIndex';
import { MessageConversationCoverIndex1795700000002 } from './1795700000002-MessageConversationCoverIndex';
import { UserMessageUnreadIndexFlags1795700000003 } from './1795700000003-UserMessageUnreadIndexFlags';

/** Every migration, in order (listed explicitly; no glob discovery). */
export const MIGRATIONS = [
  Initial1795273649453,
  UsersGroupsProfileFields1795273944794,
  PushDeviceTokens1795273949745,
  Channels1795274009109,
  Messaging1795274250846,
  MessageEditHistoryVisibility1795291012000,
  Presence1795644993558,
  RealmEmoji1795645131611,
  EmailChangeStatus1795647332460,
  BotStorage1795649705577,
  ScheduledMessages1795655173731,
  AlertWordsDraftsSnippets1795655178189,
  LinkifiersPlaygrounds1795655434658,
  ChannelEmailAddress1795656176353,
  RealmAlertWordsVersion1795656453499,
  MutedUsers1795657538779,
  Submessages1795659019365,
  MissedMessageEmails1795659108894,
  Invitation1795659117581,
  RealmSettings1795666154695,
  RealmUploadQuota1795677605893,
  UserMessagePrivateIndex1795700000000,
  UserProfileBotIndex1795700000001,
  MessageConversationCoverIndex1795700000002,
  UserMessageUnreadIndexFlags1795700000003,
];
