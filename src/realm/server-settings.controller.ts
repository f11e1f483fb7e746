import { Controller, Get, Inject, Req } from '@nestjs/common';
import type { Request } from 'express';
import { Public } from '../common/auth/decorators';
import { APP_CONFIG, AppConfig, pushNotificationsConfigured } from '../common/config/config';
import { Errors, ZulipError } from '../common/errors/zulip-error';
import { SerializedResult } from '../common/http/envelope.interceptor';
import { API_FEATURE_LEVEL, SERVER_MERGE_BASE, SERVER_VERSION } from '../common/version';
import type { Realm } from './realm.entity';
import { RealmService } from './realm.service';
import { renderRealmDescription } from './realm-description';
import { authenticationMethodsDict } from './realm-options';

interface ServerSettingsAnswers {
  compatible: SerializedResult;
  incompatible: SerializedResult;
}

/** GET /server_settings: what a client reads before logging in (zerver/views/auth.py). */
@Controller('api/v1')
export class ServerSettingsController {
  constructor(
    private readonly realms: RealmService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * The answers per realm, serialised once (issue 15: every client asks before logging in, and
   * nothing in them depends on the request but the realm and the incompatible-client flag). A
   * realm's entry is made again when any field it shows changes (a realm update replaces the
   * cached realm row as well).
   */
  private readonly answers = new WeakMap<Realm, { shown: readonly unknown[]; answers: ServerSettingsAnswers }>();
  private noRealmAnswers: ServerSettingsAnswers | null = null;

  @Public()
  @Get('server_settings')
  async get(@Req() req: Request): Promise<SerializedResult> {
    const realm = await this.realmForHost(req.headers.host);
    const incompatible = /^ZulipInvalid\b/.test(String(req.headers['user-agent'] ?? ''));
    const answers = realm ? this.realmAnswers(realm) : (this.noRealmAnswers ??= this.makeAnswers(undefined));
    return incompatible ? answers.incompatible : answers.compatible;
  }

  private realmAnswers(realm: Realm): ServerSettingsAnswers {
    const shown = [
      realm.stringId,
      realm.name,
      realm.description,
      realm.iconSource,
      realm.iconVersion,
      realm.enableSpectatorAccess,
      realm.authenticationMethods,
    ];
    const hit = this.answers.get(realm);
    if (hit && hit.shown.every((value, i) => value === shown[i])) return hit.answers;
    const answers = this.makeAnswers(realm);
    this.answers.set(realm, { shown, answers });
    return answers;
  }

  private makeAnswers(realm: Realm | undefined): ServerSettingsAnswers {
    return {
      compatible: SerializedResult.of(this.settings(realm, false)),
      incompatible: SerializedResult.of(this.settings(realm, true)),
    };
  }

  private settings(realm: Realm | undefined, incompatible: boolean): Record<string, unknown> {
    const devAuth = this.config.devEndpoints;
    const body: Record<string, unknown> = {
      authentication_methods: {
        password: true,
        dev: devAuth,
        email: true,
        ldap: false,
        remoteuser: false,
        github: false,
        azuread: false,
        gitlab: false,
        apple: false,
        google: false,
        saml: false,
        'openid connect': false,
      },
      zulip_version: SERVER_VERSION,
      zulip_merge_base: SERVER_MERGE_BASE,
      zulip_feature_level: API_FEATURE_LEVEL,
      service_version: SERVER_VERSION,
      service_merge_base: SERVER_MERGE_BASE,
      service_feature_level: API_FEATURE_LEVEL,
      push_notifications_enabled: pushNotificationsConfigured(this.config),
      is_incompatible: incompatible,
      external_authentication_methods: [],
    };
    if (realm) {
      const url = this.realms.realmUrl(realm);
      // What the organization enables of the server's methods (get_auth_backends_data(realm)).
      const enabled = authenticationMethodsDict(realm.authenticationMethods);
      Object.assign(body.authentication_methods as Record<string, boolean>, {
        password: enabled.Email,
        email: enabled.Email,
        dev: devAuth && enabled.Dev,
      });
      Object.assign(body, {
        email_auth_enabled: enabled.Email,
        require_email_format_usernames: true,
        realm_url: url,
        realm_uri: url,
        realm_name: realm.name,
        realm_icon: this.realms.realmIconUrl(realm),
        realm_description: renderRealmDescription(realm.description),
        realm_web_public_access_enabled: realm.enableSpectatorAccess,
      });
    }
    return body;
  }

  /** As Zulip's api_get_server_settings: an unknown subdomain is a 400 here, not InvalidSubdomainError's 404. */
  private async realmForHost(host: string | undefined) {
    try {
      return await this.realms.realmForHost(host);
    } catch (err) {
      if (ZulipError.is(err, Errors.invalidSubdomain)) throw Errors.invalidSubdomainBadRequest();
      throw err;
    }
  }
}
