import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { AuthContext } from '../common/auth/auth.types';
import { ChannelAccessService } from '../channels/channel-access.service';
import { Errors } from '../common/errors/zulip-error';
import { runInTransaction } from '../database/transaction';
import { type ClientEvent, realmUpdateDictEvent, realmUpdateEvent } from '../events/client-events';
import { EventsService } from '../events/events.service';
import { Realm } from '../realm/realm.entity';
import { RealmService } from '../realm/realm.service';
import { REALM_GROUP_SETTING_NAMES, REALM_GROUP_SETTINGS, Role } from '../realm/system-groups';
import { nulPosition, replaceNul } from '../realm/text-checks';
import { GroupSettingChange, GroupSettingsService } from '../users/group-settings.service';
import { UpdateRealmArgs } from './dto/update-realm.dto';
import { RealmAdminRepository } from './realm-admin.repository';
import {
  EDIT_HISTORY_VISIBILITY_POLICIES,
  OWNER_ONLY_GROUP_SETTINGS,
  parseTimeLimit,
  REALM_TOPICS_POLICIES,
  TIME_LIMIT_SETTINGS,
  TimeLimitSetting,
} from './realm-settings.policy';
import { ParamErrors } from '../common/errors/param.errors';
import { ChannelErrors } from '../channels/channel.errors';

/** Entity properties of the scalar settings PATCH /realm supports. */
const PROPERTY: Record<string, keyof Realm> = {
  allow_message_editing: 'allowMessageEditing',
  description: 'description',
  message_edit_history_visibility_policy: 'messageEditHistoryVisibilityPolicy',
  message_content_delete_limit_seconds: 'messageContentDeleteLimitSeconds',
  message_content_edit_limit_seconds: 'messageContentEditLimitSeconds',
  move_messages_between_streams_limit_seconds: 'moveMessagesBetweenStreamsLimitSeconds',
  move_messages_within_stream_limit_seconds: 'moveMessagesWithinStreamLimitSeconds',
  name: 'name',
  topics_policy: 'topicsPolicy',
};

/** A scalar realm setting's value. */
type RealmValue = string | number | boolean | null;

/** Settings whose events use the update_dict form for historical reasons (do_set_realm_property). */
const UPDATE_DICT_SETTINGS = new Set(['allow_message_editing', 'message_content_edit_limit_seconds']);

/**
 * PATCH /realm (Zulip's update_realm, for the settings this server supports): everything is
 * validated first, then applied in one transaction; each change sends the realm event Zulip
 * sends, and the response lists the changed settings.
 */
@Injectable()
export class RealmAdminService {
  constructor(
    private readonly realms: RealmService,
    private readonly groupSettings: GroupSettingsService,
    private readonly repository: RealmAdminRepository,
    private readonly channels: ChannelAccessService,
    private readonly events: EventsService,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  async updateRealm(auth: AuthContext, args: UpdateRealmArgs): Promise<Record<string, unknown>> {
    const realm = await this.realms.getRealm(auth.realm.id);
    const isOwner = auth.user.role === Role.OWNER;
    if (OWNER_ONLY_GROUP_SETTINGS.some((s) => args[s] !== undefined) && !isOwner) throw Errors.mustBeOwner();

    const limits = new Map<TimeLimitSetting, number | null>();
    for (const name of TIME_LIMIT_SETTINGS) {
      const raw = args[name];
      if (raw !== undefined) limits.set(name, parseTimeLimit(name, raw));
    }

    const nameNul = args.name === undefined ? undefined : nulPosition(args.name);
    if (nameNul !== undefined) throw ParamErrors.invalidCharacter('organization name', nameNul);
    const description = args.description === undefined ? undefined : replaceNul(args.description);

    const data: Record<string, unknown> = {};
    const result = await runInTransaction(this.dataSource, async () => {
      const recipients = await this.repository.activeUserIds(realm.id);
      const changes: Partial<Realm> = {};
      const set = (name: string, value: RealmValue, event: ClientEvent, response: unknown) => {
        (changes as Record<string, unknown>)[PROPERTY[name]] = value;
        (realm as unknown as Record<string, unknown>)[PROPERTY[name]] = value;
        this.events.sendOnCommit(realm.id, event, recipients);
        data[name] = response;
      };
      const propertyEvent = (name: string, value: RealmValue): ClientEvent =>
        UPDATE_DICT_SETTINGS.has(name) ? realmUpdateDictEvent({ [name]: value }) : realmUpdateEvent(name, value);

      // "unlimited" limits are applied first, as Zulip's parse_and_set_setting_value_if_required does.
      for (const name of TIME_LIMIT_SETTINGS) {
        if (limits.get(name) === null && realm[PROPERTY[name]] !== null)
          set(name, null, propertyEvent(name, null), null);
      }
      // The other settings, in Zulip's (alphabetical) parameter order.
      const scalar: Array<[string, RealmValue | undefined]> = [
        ['allow_message_editing', args.allow_message_editing],
        ['description', description],
        ['message_edit_history_visibility_policy', args.message_edit_history_visibility_policy],
        ...TIME_LIMIT_SETTINGS.map((n): [string, RealmValue | undefined] => [n, limits.get(n) ?? undefined]),
        ['name', args.name],
        ['topics_policy', args.topics_policy],
      ];
      scalar.sort((a, b) => a[0].localeCompare(b[0]));
      for (const [name, value] of scalar) {
        if (value === undefined || value === null || realm[PROPERTY[name]] === value) continue;
        if (name === 'topics_policy') {
          const event = realmUpdateDictEvent({
            topics_policy: value,
            mandatory_topics: value === 'disable_empty_topic',
          });
          set(name, value, event, REALM_TOPICS_POLICIES[value as string]);
        } else if (name === 'message_edit_history_visibility_policy') {
          set(name, value, realmUpdateEvent(name, value), EDIT_HISTORY_VISIBILITY_POLICIES[value as string]);
        } else {
          set(name, value, propertyEvent(name, value), typeof value === 'string' ? 'updated' : value);
        }
      }
      if (Object.keys(changes).length > 0) await this.realms.updateRealm(realm.id, changes);

      for (const setting of REALM_GROUP_SETTING_NAMES) {
        const change = args[setting] as GroupSettingChange | undefined;
        if (change === undefined) continue;
        const currentId = realm[setting];
        const diff = await this.groupSettings.changeFor(realm.id, change, currentId);
        if (!diff) continue;
        const newId = await this.groupSettings.parseForSetting(
          realm.id,
          setting,
          diff.next,
          REALM_GROUP_SETTINGS[setting],
          {
            currentGroupId: currentId,
          },
        );
        await this.realms.updateRealm(realm.id, { [setting]: newId });
        realm[setting] = newId;
        await this.groupSettings.dropIfAnonymous(realm.id, currentId, newId);
        const value = await this.groupSettings.valueForApi(realm.id, newId);
        this.events.sendOnCommit(realm.id, realmUpdateDictEvent({ [setting]: value }), recipients);
        data[setting] = value;
      }

      const channelId = args.moderation_request_channel_id;
      if (
        channelId !== undefined &&
        (realm.moderationRequestChannelId === null || realm.moderationRequestChannelId !== channelId)
      ) {
        let stored: number | null = null;
        if (channelId >= 0) {
          const actor = await this.channels.actorFor(auth.user);
          const { stream } = await this.channels.accessById(actor, realm.id, channelId, {
            requireContentAccess: false,
          });
          if (!stream.inviteOnly) throw ChannelErrors.moderationChannelMustBePrivate();
          stored = stream.id;
        }
        await this.realms.updateRealm(realm.id, { moderationRequestChannelId: stored });
        this.events.sendOnCommit(realm.id, realmUpdateEvent('moderation_request_channel_id', channelId), recipients);
        data.moderation_request_channel_id = channelId;
      }
      return data;
    });
    this.realms.invalidate();
    return result;
  }
}
