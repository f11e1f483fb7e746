import { RealmUsers } from './realm-users';
import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig } from '../common/config/config';
import { Errors } from '../common/errors/zulip-error';
import { CacheInvalidation } from '../database/cache-invalidation';
import { onCommit, runInTransaction } from '../database/transaction';
import { Realm } from './realm.entity';
import { RealmRepository } from './realm.repository';
import { REALM_GROUP_SETTING_NAMES, REALM_GROUP_SETTINGS, SystemGroupName } from './system-groups';
import { defaultUserSettings, UserSettingsValues } from './user-settings';
import { RealmErrors } from './realm.errors';

export interface CreateRealmInput {
  stringId: string;
  name: string;
  description?: string;
  orgType?: number;
  inviteRequired?: boolean;
  enableSpectatorAccess?: boolean;
  userDefaults?: Partial<UserSettingsValues>;
}

const REALM_CACHE_MS = 2000;

/** Realms: creation with their system groups, lookup by Host header, URLs. */
/** Host header values whose subdomain is remembered (any client can send any Host). */
const MAX_REMEMBERED_HOSTS = 256;

@Injectable()
export class RealmService {
  private readonly byStringId = new Map<string, { realm: Promise<Realm | null>; at: number }>();
  /** subdomainOf's answers by Host header (null: no subdomain). */
  private readonly subdomainsByHost = new Map<string, string | null>();

  constructor(
    private readonly realms: RealmRepository,
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly invalidation: CacheInvalidation,
    private readonly realmUsers: RealmUsers,
  ) {
    invalidation.on('realm', () => this.byStringId.clear());
  }

  /**
   * The realm a request's Host names: `<string_id>.<EXTERNAL_HOST>` is that realm; any other host
   * (the root domain, an IP address) serves the default realm, if one is configured.
   * Returns `undefined` for "no realm on this host" and throws for an unknown subdomain.
   */
  async realmForHost(hostHeader: string | undefined): Promise<Realm | undefined> {
    const stringId = this.subdomainOf(hostHeader);
    if (stringId === undefined) {
      if (!this.config.defaultRealm) return undefined;
      return (await this.cachedRealm(this.config.defaultRealm)) ?? undefined;
    }
    const realm = await this.cachedRealm(stringId);
    if (!realm) throw Errors.invalidSubdomain();
    return realm;
  }

  /** The subdomain part of the Host header, or undefined for the root domain / other hosts. */
  subdomainOf(hostHeader: string | undefined): string | undefined {
    // Remembered per header value: a server sees few, and every request asks (a few µs each).
    const key = hostHeader ?? '';
    const hit = this.subdomainsByHost.get(key);
    if (hit !== undefined) return hit ?? undefined;
    const sub = this.parseSubdomain(hostHeader);
    if (this.subdomainsByHost.size >= MAX_REMEMBERED_HOSTS) this.subdomainsByHost.clear();
    this.subdomainsByHost.set(key, sub ?? null);
    return sub;
  }

  private parseSubdomain(hostHeader: string | undefined): string | undefined {
    const host = (hostHeader ?? '').trim().toLowerCase();
    const root = this.config.externalHost;
    if (!host || host === root) return undefined;
    const rootNoPort = root.replace(/:\d+$/, '');
    const hostNoPort = host.replace(/:\d+$/, '');
    for (const suffix of new Set([`.${root}`, `.${rootNoPort}`])) {
      const candidate = host.endsWith(suffix) ? host : hostNoPort.endsWith(suffix) ? hostNoPort : undefined;
      if (candidate) {
        const sub = candidate.slice(0, -suffix.length);
        if (sub && !sub.includes('.')) return sub;
      }
    }
    return undefined;
  }

  private async cachedRealm(stringId: string): Promise<Realm | null> {
    const hit = this.byStringId.get(stringId);
    const now = Date.now();
    if (hit && now - hit.at < REALM_CACHE_MS) return hit.realm;
    // The pending load is shared: requests arriving while it runs wait for it instead of each
    // sending the same query when the entry expires under load. An invalidation arriving
    // meanwhile drops the entry (the handler clears the map), so a stale row is not kept.
    const entry = { realm: this.realms.findByStringId(stringId), at: now };
    if (this.invalidation.canCache) this.byStringId.set(stringId, entry);
    entry.realm.catch(() => {
      if (this.byStringId.get(stringId) === entry) this.byStringId.delete(stringId);
    });
    return entry.realm;
  }

  /** Forget cached realm rows (after a realm setting changes), in every process. */
  invalidate(): void {
    this.invalidation.publish('realm', null);
  }

  async getRealm(id: number): Promise<Realm> {
    const realm = await this.realms.findById(id);
    if (!realm) throw RealmErrors.invalidRealm();
    return realm;
  }

  findByStringId(stringId: string): Promise<Realm | null> {
    return this.realms.findByStringId(stringId);
  }

  realmUrl(realm: Pick<Realm, 'stringId'>): string {
    const { externalScheme, externalHost, defaultRealm } = this.config;
    if (realm.stringId === defaultRealm || realm.stringId === '') return `${externalScheme}://${externalHost}`;
    return `${externalScheme}://${realm.stringId}.${externalHost}`;
  }

  /** Host part used in dummy API emails (`user<id>@<host>`), as Zulip's get_fake_email_domain. */
  realmHost(realm: Pick<Realm, 'stringId'>): string {
    return new URL(this.realmUrl(realm)).hostname;
  }

  realmIconUrl(realm: Pick<Realm, 'iconSource' | 'iconVersion'>): string {
    return `/static/images/default-avatar.png?version=${realm.iconVersion}`;
  }

  /** Creates a realm with its eight system groups, default permission settings and user defaults. */
  async createRealm(input: CreateRealmInput): Promise<Realm> {
    if (!/^[a-z0-9-]{0,40}$/.test(input.stringId)) throw RealmErrors.invalidStringId();
    return runInTransaction(this.dataSource, async () => {
      const realm = await this.realms.insertRealm({
        stringId: input.stringId,
        name: input.name,
        description: input.description ?? '',
        orgType: input.orgType ?? 10,
        inviteRequired: input.inviteRequired ?? true,
        enableSpectatorAccess: input.enableSpectatorAccess ?? false,
      });
      const groups = await this.realmUsers.createSystemGroups(realm.id);
      const settings: Partial<Realm> = {};
      for (const name of REALM_GROUP_SETTING_NAMES) {
        settings[name] = groups.get(REALM_GROUP_SETTINGS[name].default)!;
      }
      await this.realms.updateRealm(realm.id, settings);
      await this.realms.insertUserDefaults(realm.id, { ...defaultUserSettings(), ...input.userDefaults });
      this.invalidate();
      return (await this.realms.findById(realm.id))!;
    });
  }

  async updateRealm(id: number, values: Partial<Realm>): Promise<void> {
    await this.realms.updateRealm(id, values);
    this.invalidate();
  }

  /**
   * Zulip's Realm.upload_quota_bytes, in MiB: the realm's own quota if it has one, else the
   * server's UPLOAD_QUOTA_MIB; null = unlimited.
   */
  uploadQuotaMib(realm: Pick<Realm, 'customUploadQuotaMib'>): number | null {
    return realm.customUploadQuotaMib ?? this.config.uploadQuotaMib;
  }

  /** Sets the realm's own upload quota (null: back to the server's); every process sees it. */
  async setUploadQuota(realmId: number, mib: number | null): Promise<void> {
    await this.updateRealm(realmId, { customUploadQuotaMib: mib });
  }

  /** Marks the realm's alert words changed (inside the change's transaction). */
  async bumpAlertWordsVersion(realmId: number): Promise<void> {
    await this.realms.bumpAlertWordsVersion(realmId);
    onCommit(() => this.invalidate());
  }

  systemGroupIds(realmId: number): Promise<Map<SystemGroupName, number>> {
    return this.realmUsers.systemGroupIds(realmId);
  }

  async userDefaults(realmId: number): Promise<UserSettingsValues> {
    const row = await this.realms.findUserDefaults(realmId);
    return row?.settings ?? defaultUserSettings();
  }

  ping(): Promise<void> {
    return this.realms.ping();
  }
}
