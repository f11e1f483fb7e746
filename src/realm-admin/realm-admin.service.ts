import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { AuthContext } from '../common/auth/auth.types';
import { ChannelAccessService } from '../channels/channel-access.service';
import { ChannelErrors } from '../channels/channel.errors';
import type { ChannelActor } from '../channels/channels.policy';
import { Errors } from '../common/errors/zulip-error';
import { ParamErrors } from '../common/errors/param.errors';
import { runInTransaction } from '../database/transaction';
import { type ClientEvent, realmUpdateDictEvent, realmUpdateEvent } from '../events/client-events';
import { EventsService } from '../events/events.service';
import { Realm } from '../realm/realm.entity';
import { RealmErrors } from '../realm/realm.errors';
import { RealmService } from '../realm/realm.service';
import { REALM_GROUP_SETTINGS, Role } from '../realm/system-groups';
import { nulPosition, replaceNul } from '../realm/text-checks';
import { GroupSettingChange, GroupSettingsService } from '../users/group-settings.service';
import { UserDirectoryService } from '../users/user-directory.service';
import { UpdateRealmArgs } from './dto/update-realm.dto';
import { authenticationMethodsDict, authenticationMethodsForApi } from '../realm/realm-options';
import {
  CHANNEL_SETTINGS,
  CHECK_ORDER,
  checkAuthenticationMethods,
  GROUP_SETTING_ORDER,
  REALM_PROPERTIES,
  RealmPropertyDef,
  RealmPropertyValue,
} from './realm-properties';
import { OWNER_ONLY_GROUP_SETTINGS } from './realm-settings.policy';

interface GroupSettingUpdate {
  setting: (typeof GROUP_SETTING_ORDER)[number];
  currentId: number;
  newId: number;
}

interface ChannelSettingUpdate {
  setting: (typeof CHANNEL_SETTINGS)[number];
  channelId: number;
  /** The channel's id, or null to unset (-1). */
  stored: number | null;
}

/** A checked PATCH /realm: everything that will be written, in the order it is written. */
interface RealmUpdateRequest {
  values: Map<string, RealmPropertyValue>;
  groupChanges: GroupSettingUpdate[];
  authenticationMethods: UpdateRealmArgs['authentication_methods'];
  channelChanges: ChannelSettingUpdate[];
}

/**
 * PATCH /realm (Zulip's update_realm). Everything is checked in Zulip's order, then applied in
 * one transaction (a failure anywhere writes nothing); each change sends the realm event Zulip
 * sends, and the response lists the changed settings. The settings themselves are the rows of
 * REALM_PROPERTIES, CHANNEL_SETTINGS and REALM_GROUP_SETTINGS.
 */
@Injectable()
export class RealmAdminService {
  constructor(
    private readonly realms: RealmService,
    private readonly groupSettings: GroupSettingsService,
    private readonly directory: UserDirectoryService,
    private readonly channels: ChannelAccessService,
    private readonly events: EventsService,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  async updateRealm(auth: AuthContext, args: UpdateRealmArgs): Promise<Record<string, unknown>> {
    const realm = await this.realms.getRealm(auth.realm.id);
    const values = parseRealmProperties(auth, args);
    const result = await runInTransaction(this.dataSource, async () => {
      const recipients = await this.directory.activeUserIds(realm.id);
      const request = await this.loadRealmUpdate(auth, realm, args, values);
      return this.applyRealmUpdate(realm, request, recipients);
    });
    this.realms.invalidate();
    return result;
  }

  /**
   * The checks that need the database, in Zulip's order after the property checks: the group
   * settings ({new, old}; an anonymous group is stored as it is resolved, as in Zulip), the
   * channel settings (the actor's access) and string_id. Nothing of the realm is written yet.
   */
  private async loadRealmUpdate(
    auth: AuthContext,
    realm: Realm,
    args: UpdateRealmArgs,
    values: Map<string, RealmPropertyValue>,
  ): Promise<RealmUpdateRequest> {
    const groupChanges: GroupSettingUpdate[] = [];
    for (const setting of GROUP_SETTING_ORDER) {
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
      groupChanges.push({ setting, currentId, newId });
    }

    const channelChanges: ChannelSettingUpdate[] = [];
    let actor: ChannelActor | undefined;
    for (const setting of CHANNEL_SETTINGS) {
      const channelId = args[setting.name] as number | undefined;
      if (channelId === undefined || realm[setting.column] === channelId) continue;
      let stored: number | null = null;
      if (channelId >= 0) {
        actor ??= await this.channels.actorFor(auth.user);
        const { stream } = await this.channels.accessById(actor, realm.id, channelId, { requireContentAccess: false });
        if (setting.mustBePrivate && !stream.inviteOnly) throw ChannelErrors.moderationChannelMustBePrivate();
        stored = stream.id;
      }
      channelChanges.push({ setting, channelId, stored });
    }

    if (args.string_id !== undefined) {
      if (auth.user.role !== Role.OWNER) throw Errors.mustBeOwner();
      // Only demo organizations may change their subdomain; this server has none.
      throw RealmErrors.mustBeDemoOrganization();
    }
    return { values, groupChanges, authenticationMethods: args.authentication_methods, channelChanges };
  }

  /** The writes and their events, in Zulip's order; returns the response's changed settings. */
  private async applyRealmUpdate(
    realm: Realm,
    request: RealmUpdateRequest,
    recipients: number[],
  ): Promise<Record<string, unknown>> {
    const data: Record<string, unknown> = {};
    const send = (event: ClientEvent) => this.events.sendOnCommit(realm.id, event, recipients);
    const store = async (changes: Partial<Realm>) => {
      await this.realms.updateRealm(realm.id, changes);
      Object.assign(realm, changes);
    };
    const setProperty = async (name: string, def: RealmPropertyDef, value: RealmPropertyValue) => {
      await store({ [def.column]: value });
      send(def.event ? def.event(value) : realmUpdateEvent(name, value));
      data[name] = def.response ? def.response(value) : typeof value === 'string' ? 'updated' : value;
    };
    const { values } = request;

    // Nullable settings set to null ("unlimited", "default") go first, as in Zulip.
    for (const [name, value] of values) {
      const def = REALM_PROPERTIES[name];
      if (value === null && def.parse && realm[def.column] !== null) await setProperty(name, def, null);
    }
    for (const [name, value] of values) {
      const def = REALM_PROPERTIES[name];
      if (value === null || def.alwaysSend || realm[def.column] === value) continue;
      await setProperty(name, def, value);
    }

    for (const change of request.groupChanges) await this.doChangeGroupSetting(realm, change, data, send);

    const methods = request.authenticationMethods;
    if (methods !== undefined && !sameDict(authenticationMethodsDict(realm.authenticationMethods), methods)) {
      const stored = { ...authenticationMethodsDict(realm.authenticationMethods) };
      for (const [key, enabled] of Object.entries(methods)) stored[key] = Boolean(enabled);
      await store({ authenticationMethods: stored });
      send(realmUpdateDictEvent({ authentication_methods: authenticationMethodsForApi(stored) }));
      data.authentication_methods = methods;
    }

    for (const { setting, channelId, stored } of request.channelChanges) {
      await store({ [setting.column]: stored });
      send(realmUpdateEvent(setting.name, channelId));
      data[setting.name] = channelId;
    }

    // Sent whether or not the value changes (do_change_realm_org_type), after everything else.
    for (const [name, value] of values) {
      const def = REALM_PROPERTIES[name];
      if (def.alwaysSend) await setProperty(name, def, value);
    }
    return data;
  }

  /** One group setting: the new group, the old anonymous group dropped, the event. */
  private async doChangeGroupSetting(
    realm: Realm,
    { setting, currentId, newId }: GroupSettingUpdate,
    data: Record<string, unknown>,
    send: (event: ClientEvent) => void,
  ): Promise<void> {
    await this.realms.updateRealm(realm.id, { [setting]: newId });
    realm[setting] = newId;
    await this.groupSettings.dropIfAnonymous(realm.id, currentId, newId);
    const value = await this.groupSettings.valueForApi(realm.id, newId);
    send(realmUpdateDictEvent({ [setting]: value }));
    data[setting] = value;
  }
}

/**
 * update_realm's checks that need no database, with their own texts and in its order (owner-only
 * settings, each property's check and parser, the name's NUL), and the values to store (time
 * limits and retention parsed; Zulip parses them here too).
 */
function parseRealmProperties(auth: AuthContext, args: UpdateRealmArgs): Map<string, RealmPropertyValue> {
  const isOwner = auth.user.role === Role.OWNER;
  const given = (name: string) => args[name] !== undefined;
  const requireOwner = () => {
    if (!isOwner) throw Errors.mustBeOwner();
  };
  for (const name of CHECK_ORDER) {
    if (!given(name)) continue;
    if (name === 'authentication_methods') {
      requireOwner();
      checkAuthenticationMethods(args.authentication_methods!);
      continue;
    }
    const def = REALM_PROPERTIES[name];
    if (def.ownerOnly) requireOwner();
    def.check?.(args[name]);
    def.parse?.(args[name]);
  }
  const ownerOnly = [
    ...Object.keys(REALM_PROPERTIES).filter((n) => REALM_PROPERTIES[n].ownerOnly),
    ...OWNER_ONLY_GROUP_SETTINGS,
  ];
  if (ownerOnly.some(given)) requireOwner();

  const values = new Map<string, RealmPropertyValue>();
  for (const [name, def] of Object.entries(REALM_PROPERTIES)) {
    if (!given(name)) continue;
    values.set(name, def.parse ? def.parse(args[name]) : (args[name] as RealmPropertyValue));
  }
  const newName = values.get('name');
  if (typeof newName === 'string') {
    const at = nulPosition(newName);
    if (at !== undefined) throw ParamErrors.invalidCharacter('organization name', at);
  }
  if (typeof values.get('description') === 'string') {
    values.set('description', replaceNul(values.get('description') as string));
  }
  return values;
}

/** Python's dict equality for the authentication methods (`realm.authentication_methods_dict() != given`). */
function sameDict(current: Record<string, boolean>, given: Record<string, unknown>): boolean {
  const keys = Object.keys(current);
  return (
    keys.length === Object.keys(given).length && keys.every((k) => Object.hasOwn(given, k) && given[k] === current[k])
  );
}
