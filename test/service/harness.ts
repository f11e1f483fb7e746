/**
 * The service tier: the real Nest modules as an application context (no HTTP server, no guards,
 * no parameter parsing) on a fresh database cloned from the seeded template, as the API tier's
 * startTestApp uses. Specs call services and repositories directly (`h.get(SomeService)`), build
 * what they need through the services (realms, users, channels, groups), and check actions'
 * events with {@link ServiceHarness.verifyAction} (Zulip's verify_action without HTTP).
 */
import 'reflect-metadata';
import { INestApplicationContext, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { DataSource } from 'typeorm';
import { AppModule } from '../../src/app.module';
import type { AuthContext } from '../../src/common/auth/auth.types';
import type { AppConfig } from '../../src/common/config/config';
import { parseParams } from '../../src/common/http/params';
import { Role } from '../../src/common/roles';
import { SubscriptionsService } from '../../src/channels/subscriptions.service';
import type { Stream } from '../../src/channels/channel.entity';
import { ChannelsRepository } from '../../src/channels/channels.repository';
import { EventsService } from '../../src/events/events.service';
import { AppLogger, createRootLogger } from '../../src/logging/logger';
import { RealmService } from '../../src/realm/realm.service';
import type { Realm } from '../../src/realm/realm.entity';
import { RegisterArgs } from '../../src/register/dto/register.dto';
import { RegisterService } from '../../src/register/register.service';
import { UserGroupsService } from '../../src/users/user-groups.service';
import type { UserProfile } from '../../src/users/user.entity';
import { UsersService } from '../../src/users/users.service';
import { encodeParams } from '../helpers/api';
import { cloneTemplateDatabase } from '../helpers/test-db';
import { testConfig } from '../helpers/test-app';
import { Events, State, VerifyDriver, verifyActionWith, VerifyOptions } from '../helpers/verify-action';

export type { VerifyOptions };

/** A user given by delivery email (in the demo realm `zulip`) or as a loaded row. */
export type UserRef = string | Pick<UserProfile, 'id' | 'realmId'>;

export interface NewUser {
  email: string;
  fullName?: string;
  role?: number;
}

export interface NewChannel {
  inviteOnly?: boolean;
  historyPublicToSubscribers?: boolean;
  /** Subscribers (users of the creator's realm); the creator is not added unless listed. */
  subscribers?: UserRef[];
}

export interface ServiceHarness {
  app: INestApplicationContext;
  config: AppConfig;
  dataSource: DataSource;
  /** A provider of the application (any module's service or repository). */
  get<T>(type: Type<T>): T;
  /** A realm by string_id (default: the demo realm `zulip`), read fresh. */
  realm(stringId?: string): Promise<Realm>;
  /** A user, read fresh. */
  user(ref: UserRef): Promise<UserProfile>;
  /** What the API guards give a handler: the user and their realm, read fresh. */
  auth(ref: UserRef): Promise<AuthContext>;
  /** A new realm (with its system groups and defaults) through RealmService. */
  createRealm(stringId: string, name?: string): Promise<Realm>;
  /** A new user (a member unless `role` says otherwise) through UsersService. */
  createUser(realm: Realm, input: NewUser): Promise<UserProfile>;
  /** A new channel created by `creator` through SubscriptionsService.createChannel. */
  createChannel(creator: UserRef, name: string, options?: NewChannel): Promise<Stream>;
  /** A new user group (members and subgroups) created by `creator` through UserGroupsService. */
  createGroup(creator: UserRef, name: string, members: UserRef[], subgroups?: number[]): Promise<number>;
  /**
   * POST /register's state for `ref` through RegisterService, from the same parameters a client
   * sends (form values, JSON-encoded as over HTTP) and as a client receives it (JSON round trip).
   */
  register(ref: UserRef, params?: Record<string, unknown>): Promise<State>;
  /** The events waiting in one of `ref`'s queues, read through EventsService; heartbeats left out. */
  queuedEvents(ref: UserRef, queueId: string): Promise<Events>;
  /**
   * Zulip's verify_action for an action called directly: /register snapshots for `observer`
   * (three client profiles), run `action`, apply the queued events, compare with fresh
   * snapshots (test/helpers/verify-action.ts). Returns the first profile's events.
   */
  verifyAction(observer: UserRef, action: () => Promise<unknown>, opts?: VerifyOptions): Promise<Events>;
  close(): Promise<void>;
}

/** Boots the application context on a fresh clone of the template database. */
export async function startServiceHarness(env: Record<string, string> = {}): Promise<ServiceHarness> {
  const db = await cloneTemplateDatabase();
  const config = testConfig(env);
  const app = await NestFactory.createApplicationContext(AppModule.forRoot(config, db.url), {
    logger: new AppLogger(createRootLogger(config)),
  });
  const get = <T>(type: Type<T>): T => app.get(type);
  const realms = get(RealmService);
  const users = get(UsersService);

  const realm = async (stringId = 'zulip') => {
    const found = await realms.findByStringId(stringId);
    if (!found) throw new Error(`no realm ${stringId}`);
    return realms.getRealm(found.id);
  };
  const user = async (ref: UserRef) => {
    const found =
      typeof ref === 'string'
        ? await users.findByEmailInRealm((await realm()).id, ref)
        : await users.findByIdInRealm(ref.realmId, ref.id);
    if (!found) throw new Error(`no user ${typeof ref === 'string' ? ref : ref.id}`);
    return found;
  };
  const auth = async (ref: UserRef): Promise<AuthContext> => {
    const u = await user(ref);
    return { user: u, realm: await realms.getRealm(u.realmId) };
  };
  const register = async (ref: UserRef, params: Record<string, unknown> = {}) => {
    const { value } = parseParams(RegisterArgs, new Map(Object.entries(encodeParams(params))));
    const state = await get(RegisterService).register(await auth(ref), value, 'ZulipServiceTest');
    return JSON.parse(JSON.stringify(state)) as State;
  };
  const queuedEvents = async (ref: UserRef, queueId: string) => {
    const events = get(EventsService);
    await events.flush();
    const queued = await events.getEvents((await user(ref)).id, queueId, -1, true, () => undefined);
    const all = JSON.parse(JSON.stringify(queued)) as Events;
    return all.filter((e) => e.type !== 'heartbeat');
  };

  return {
    app,
    config,
    dataSource: app.get(DataSource),
    get,
    realm,
    user,
    auth,
    createRealm: (stringId, name = stringId) => realms.createRealm({ stringId, name, inviteRequired: false }),
    createUser: async (r, input) =>
      (
        await users.createUser(r, {
          email: input.email,
          fullName: input.fullName ?? input.email.split('@')[0],
          role: input.role ?? Role.MEMBER,
        })
      ).user,
    createChannel: async (creator, name, options = {}) => {
      const a = await auth(creator);
      const subscribers = await Promise.all((options.subscribers ?? []).map(async (s) => (await user(s)).id));
      const { id } = await get(SubscriptionsService).createChannel(a, {
        name,
        description: '',
        subscribers,
        inviteOnly: options.inviteOnly ?? false,
        historyPublicToSubscribers: options.historyPublicToSubscribers,
        isWebPublic: false,
        isDefaultStream: false,
        messageRetentionDays: 'realm_default',
        groupSettings: {},
        announce: false,
      });
      const stream = await get(ChannelsRepository).findByIdInRealm(a.realm.id, id);
      if (!stream) throw new Error(`channel ${name} was not created`);
      return stream;
    },
    createGroup: async (creator, name, members, subgroups = []) =>
      get(UserGroupsService).createGroup(await auth(creator), {
        name,
        description: '',
        members: await Promise.all(members.map(async (m) => (await user(m)).id)),
        subgroups,
        settings: {},
      }),
    register,
    queuedEvents,
    verifyAction: async (observer, action, opts = {}) => {
      const driver: VerifyDriver = {
        userId: (await user(observer)).id,
        register: (params) => register(observer, params),
        queuedEvents: (snapshot) => queuedEvents(observer, snapshot.queue_id as string),
      };
      return verifyActionWith(driver, action, opts);
    },
    close: async () => {
      await app.close();
      await db.drop();
    },
  };
}
