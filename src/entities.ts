import { Realm, RealmUserDefault } from './realm/realm.entity';
import { GroupGroupMembership, UserGroup, UserGroupMembership } from './realm/user-group.entity';
import { CustomProfileField, CustomProfileFieldValue } from './realm/custom-profile-field.entity';
import { NavigationView } from './users/navigation-view.entity';
import { EmailChangeStatus } from './users/email-change.entity';
import { BotStorageData } from './bot-storage/bot-storage.entity';
import { MutedUser } from './users/muted-user.entity';
import { ChannelEmailAddress } from './channels/channel-email-address.entity';
import { UserProfile } from './users/user.entity';
import { PushDeviceToken } from './push/push-device.entity';
import { PresenceSequence, UserPresence, UserStatus } from './presence/presence.entity';
import { Recipient, Stream, DefaultStream } from './channels/channel.entity';
import { Subscription } from './channels/subscription.entity';
import { UserTopic } from './channels/user-topic.entity';
import { ChannelFolder } from './channels/channel-folder.entity';
import {
  Attachment,
  AttachmentMessage,
  DirectMessageGroup,
  Message,
  Reaction,
  SubMessage,
  UserMessage,
} from './messaging/message.entity';
import { CHANNEL_GROUP_SETTING_NAMES } from './channels/channel-settings';
import { RealmEmoji } from './realm-emoji/realm-emoji.entity';
import { AlertWord } from './alert-words/alert-word.entity';
import { Draft, SavedSnippet } from './drafts/draft.entity';
import { RealmFilter } from './linkifiers/linkifier.entity';
import { RealmPlayground } from './playgrounds/playground.entity';
import { ScheduledMessage } from './scheduled-messages/scheduled-message.entity';
import { Invitation } from './invites/invitation.entity';
import { MissedMessageEmail } from './missed-message-emails/missed-message-email.entity';
import { foreignKey } from './database/foreign-key';
import { REALM_GROUP_SETTING_NAMES } from './realm/system-groups';

/** Every entity, listed explicitly (no glob discovery). */
export const ENTITIES = [
  Realm,
  RealmUserDefault,
  UserProfile,
  UserGroup,
  UserGroupMembership,
  GroupGroupMembership,
  CustomProfileField,
  CustomProfileFieldValue,
  NavigationView,
  EmailChangeStatus,
  Invitation,
  BotStorageData,
  MutedUser,
  ChannelEmailAddress,
  PushDeviceToken,
  Recipient,
  Stream,
  DefaultStream,
  Subscription,
  UserTopic,
  ChannelFolder,
  Message,
  UserMessage,
  DirectMessageGroup,
  Reaction,
  SubMessage,
  Attachment,
  AttachmentMessage,
  UserPresence,
  PresenceSequence,
  UserStatus,
  RealmEmoji,
  AlertWord,
  Draft,
  SavedSnippet,
  RealmFilter,
  RealmPlayground,
  ScheduledMessage,
  MissedMessageEmail,
];

// Foreign keys, declared in one place so entity files need not import each other.
foreignKey(RealmUserDefault, 'realm_id', () => Realm);
foreignKey(UserProfile, 'realm_id', () => Realm);
foreignKey(UserProfile, 'bot_owner_id', () => UserProfile, 'SET NULL', true);
foreignKey(UserGroup, 'realm_id', () => Realm);
foreignKey(UserGroup, 'creator_id', () => UserProfile, 'SET NULL', true);
for (const setting of [
  'can_add_members_group',
  'can_join_group',
  'can_leave_group',
  'can_manage_group',
  'can_mention_group',
  'can_remove_members_group',
]) {
  foreignKey(UserGroup, setting, () => UserGroup, 'RESTRICT', true);
}
foreignKey(UserGroupMembership, 'user_group_id', () => UserGroup);
foreignKey(UserGroupMembership, 'user_profile_id', () => UserProfile);
foreignKey(GroupGroupMembership, 'supergroup_id', () => UserGroup);
foreignKey(GroupGroupMembership, 'subgroup_id', () => UserGroup);
for (const setting of REALM_GROUP_SETTING_NAMES) {
  foreignKey(Realm, setting, () => UserGroup, 'RESTRICT', true);
}
foreignKey(CustomProfileField, 'realm_id', () => Realm);
foreignKey(CustomProfileFieldValue, 'user_profile_id', () => UserProfile);
foreignKey(CustomProfileFieldValue, 'field_id', () => CustomProfileField);
foreignKey(NavigationView, 'user_profile_id', () => UserProfile);
foreignKey(EmailChangeStatus, 'realm_id', () => Realm);
foreignKey(EmailChangeStatus, 'user_profile_id', () => UserProfile);
foreignKey(Invitation, 'realm_id', () => Realm);
foreignKey(Invitation, 'referred_by_id', () => UserProfile);
foreignKey(BotStorageData, 'bot_profile_id', () => UserProfile);
foreignKey(MutedUser, 'user_profile_id', () => UserProfile);
foreignKey(MutedUser, 'muted_user_id', () => UserProfile);
foreignKey(PushDeviceToken, 'user_id', () => UserProfile);
// Channels (src/channels).
foreignKey(Stream, 'realm_id', () => Realm);
foreignKey(Stream, 'creator_id', () => UserProfile, 'SET NULL', true);
foreignKey(Stream, 'recipient_id', () => Recipient, 'SET NULL', true);
foreignKey(Stream, 'folder_id', () => ChannelFolder, 'SET NULL', true);
for (const setting of CHANNEL_GROUP_SETTING_NAMES) {
  foreignKey(Stream, setting, () => UserGroup, 'RESTRICT');
}
foreignKey(DefaultStream, 'realm_id', () => Realm);
foreignKey(DefaultStream, 'stream_id', () => Stream);
foreignKey(Subscription, 'user_profile_id', () => UserProfile);
foreignKey(Subscription, 'recipient_id', () => Recipient);
foreignKey(UserTopic, 'user_profile_id', () => UserProfile);
foreignKey(UserTopic, 'stream_id', () => Stream);
foreignKey(UserTopic, 'recipient_id', () => Recipient);
foreignKey(ChannelEmailAddress, 'realm_id', () => Realm);
foreignKey(ChannelEmailAddress, 'channel_id', () => Stream);
foreignKey(ChannelEmailAddress, 'creator_id', () => UserProfile, 'SET NULL', true);
foreignKey(ChannelEmailAddress, 'sender_id', () => UserProfile);
foreignKey(ChannelFolder, 'realm_id', () => Realm);
foreignKey(ChannelFolder, 'creator_id', () => UserProfile, 'SET NULL', true);
for (const column of [
  'moderation_request_channel_id',
  'new_stream_announcements_stream_id',
  'signup_announcements_stream_id',
  'zulip_update_announcements_stream_id',
]) {
  foreignKey(Realm, column, () => Stream, 'SET NULL', true);
}
// Messaging (src/messaging). user_message has no foreign keys on purpose: a per-row check on the
// hottest insert (one row per recipient) costs as much as an index (performance-notes §7.5), so
// whoever deletes messages deletes their user_message rows in the same transaction.
foreignKey(Message, 'realm_id', () => Realm);
foreignKey(Message, 'sender_id', () => UserProfile);
foreignKey(Message, 'recipient_id', () => Recipient);
foreignKey(DirectMessageGroup, 'recipient_id', () => Recipient, 'SET NULL', true);
foreignKey(Reaction, 'user_profile_id', () => UserProfile);
foreignKey(Reaction, 'message_id', () => Message);
foreignKey(SubMessage, 'message_id', () => Message);
foreignKey(SubMessage, 'sender_id', () => UserProfile);
foreignKey(Attachment, 'owner_id', () => UserProfile);
foreignKey(Attachment, 'realm_id', () => Realm);
foreignKey(AttachmentMessage, 'attachment_id', () => Attachment);
foreignKey(AttachmentMessage, 'message_id', () => Message);
// Presence and status (src/presence).
foreignKey(UserPresence, 'user_profile_id', () => UserProfile);
foreignKey(UserPresence, 'realm_id', () => Realm);
foreignKey(PresenceSequence, 'realm_id', () => Realm);
foreignKey(UserStatus, 'user_profile_id', () => UserProfile);
// Custom emoji (src/realm-emoji).
foreignKey(RealmEmoji, 'realm_id', () => Realm);
foreignKey(RealmFilter, 'realm_id', () => Realm);
foreignKey(RealmPlayground, 'realm_id', () => Realm);
foreignKey(RealmEmoji, 'author_id', () => UserProfile, 'SET NULL', true);
foreignKey(AlertWord, 'realm_id', () => Realm);
foreignKey(AlertWord, 'user_profile_id', () => UserProfile);
foreignKey(Draft, 'realm_id', () => Realm);
foreignKey(Draft, 'user_profile_id', () => UserProfile);
foreignKey(Draft, 'stream_id', () => Stream, 'CASCADE', true);
foreignKey(SavedSnippet, 'realm_id', () => Realm);
foreignKey(SavedSnippet, 'user_profile_id', () => UserProfile);
foreignKey(ScheduledMessage, 'realm_id', () => Realm);
foreignKey(ScheduledMessage, 'sender_id', () => UserProfile);
foreignKey(ScheduledMessage, 'stream_id', () => Stream, 'CASCADE', true);
foreignKey(ScheduledMessage, 'delivered_message_id', () => Message, 'SET NULL', true);
// Missed-message emails (src/missed-message-emails): a deleted message or user takes its rows along.
foreignKey(MissedMessageEmail, 'realm_id', () => Realm);
foreignKey(MissedMessageEmail, 'user_profile_id', () => UserProfile);
foreignKey(MissedMessageEmail, 'message_id', () => Message);
