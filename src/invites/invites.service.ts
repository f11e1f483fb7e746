import { randomInt } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { AuthContext } from '../common/auth/auth.types';
import { Errors, ZulipError } from '../common/errors/zulip-error';
import { ParamErrors } from '../common/errors/param.errors';
import { ChannelAccessService } from '../channels/channel-access.service';
import { Stream } from '../channels/channel.entity';
import { ChannelQueriesService } from '../channels/channel-queries.service';
import { canSubscribeOthers, holdsGroupSetting } from '../channels/channels.policy';
import { SubscriptionsService } from '../channels/subscriptions.service';
import { runInTransaction } from '../database/transaction';
import { EmailService, isEmailAddress } from '../email/email.service';
import { EventsService } from '../events/events.service';
import { MessageSendService } from '../messaging/message-send.service';
import { Realm } from '../realm/realm.entity';
import { RealmService } from '../realm/realm.service';
import { REALM_GROUP_SETTINGS, Role } from '../realm/system-groups';
import { GroupSettingsService } from '../users/group-settings.service';
import { UserAdminService } from '../users/user-admin.service';
import { UserDirectoryService } from '../users/user-directory.service';
import { UserGroupsService } from '../users/user-groups.service';
import { checkFullName, isStrongEnoughPassword } from '../users/user-name.policy';
import { UserErrors } from '../users/user.errors';
import { isValidEmail } from '../users/users.service';
import { Invitation, InvitationStatus } from './invitation.entity';
import { InviteeError, InviteErrors, InviteeTexts } from './invite.errors';
import { InvitesRepository } from './invites.repository';

/**
 * Email invitations a realm accepts per day (Zulip's INVITES_DEFAULT_REALM_DAILY_MAX, the
 * default `max_invites`); resent ones count again. A request beyond it writes nothing.
 */
export const INVITES_DAILY_MAX = 100;
/** The longest validity accepted (ten years; null means "never expires"). */
const MAX_VALIDITY_MINUTES = 10 * 365 * 24 * 60;
const KEY_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

function generateKey(): string {
  let key = '';
  for (let i = 0; i < 24; i++) key += KEY_ALPHABET[randomInt(KEY_ALPHABET.length)];
  return key;
}

/** get_invitee_emails_set: split on commas and newlines, take `Name <address>`'s address, trim. */
export function inviteeEmails(raw: string): string[] {
  const out = new Set<string>();
  for (let part of raw.split(/[,\n]/)) {
    const named = /<(.*)>/.exec(part);
    if (named) part = named[1];
    out.add(part.trim());
  }
  return [...out];
}

export interface InviteOptions {
  emailsRaw: string;
  inviteAs: number;
  expiresInMinutes: number | null;
  streamIds: number[];
  groupIds: number[] | null;
  includeRealmDefaultSubscriptions: boolean;
  notifyReferrerOnJoin: boolean;
}

export type InviteDict = Record<string, unknown>;

/** What a registration link leads to. */
export type JoinTarget =
  | { outcome: 'ok'; invitation: Invitation; realm: Realm }
  | { outcome: 'invalid' }
  | { outcome: 'refused'; reason: string };

export type RegisterResult =
  | { outcome: 'created'; email: string; realmName: string; realmUrl: string }
  | { outcome: 'invalid' }
  | { outcome: 'refused'; reason: string; status: number };

/** Invitations (zerver/views/invite.py, zerver/actions/invites.py) and accepting them. */
@Injectable()
export class InvitesService {
  private readonly logger = new Logger('Invites');

  constructor(
    private readonly repo: InvitesRepository,
    private readonly realms: RealmService,
    private readonly groupSettings: GroupSettingsService,
    private readonly groups: UserGroupsService,
    private readonly access: ChannelAccessService,
    private readonly queries: ChannelQueriesService,
    private readonly subscriptions: SubscriptionsService,
    private readonly directory: UserDirectoryService,
    private readonly admin: UserAdminService,
    private readonly events: EventsService,
    private readonly email: EmailService,
    private readonly send: MessageSendService,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  /** check_role_based_permissions: owners are invited by owners, other staff by administrators. */
  private checkRole(auth: AuthContext, invitedAs: number, requireAdmin: boolean): void {
    if (invitedAs === Role.OWNER && auth.user.role !== Role.OWNER) throw Errors.mustBeOwner();
    if (requireAdmin && auth.user.role > Role.ADMINISTRATOR) throw Errors.mustBeAdmin();
  }

  private static checkValidity(minutes: number | null): void {
    if (minutes !== null && (minutes < 1 || minutes > MAX_VALIDITY_MINUTES)) {
      throw ParamErrors.invalid('invite_expires_in_minutes');
    }
  }

  private async holds(auth: AuthContext, setting: 'can_invite_users_group' | 'create_multiuse_invite_group') {
    return this.groupSettings.hasPermission(
      auth.realm.id,
      auth.user,
      auth.realm[setting],
      REALM_GROUP_SETTINGS[setting].allowEveryone,
    );
  }

  /** access_streams_for_invite. */
  private async accessChannels(auth: AuthContext, streamIds: number[]): Promise<number[]> {
    const actor = await this.access.actorFor(auth.user);
    const ids = [...new Set(streamIds)];
    let streams: Stream[];
    try {
      // Set-based: two queries whatever the number of channels.
      const access = await this.access.require(actor, auth.realm.id, ids);
      streams = ids.map((id) => access.get(id)!.stream);
    } catch (err) {
      if (!(err instanceof ZulipError)) throw err;
      // Name the first refused channel, in the request's order (as Zulip's loop does).
      for (const id of ids) {
        try {
          await this.access.accessById(actor, auth.realm.id, id);
        } catch (inner) {
          if (inner instanceof ZulipError) throw InviteErrors.invalidChannel(id);
          throw inner;
        }
      }
      throw err;
    }
    if (streams.length === 0) return [];
    // get_streams_to_which_user_cannot_add_subscribers(allow_default_streams=True).
    const defaults = new Set(await this.queries.defaultStreamIds(auth));
    const realmWide = holdsGroupSetting(actor, auth.realm.can_add_subscribers_group, false);
    if (streams.some((s) => !defaults.has(s.id) && !canSubscribeOthers(actor, s, realmWide))) {
      throw InviteErrors.cannotSubscribeOthers();
    }
    return [...new Set(streams.map((s) => s.id))];
  }

  /** notify_invites_changed: administrators (bots included) and the referrer. */
  private async notifyChanged(realmId: number, referrerId: number): Promise<void> {
    const users = await this.directory.activeUsers(realmId);
    const ids = users.filter((u) => u.role <= Role.ADMINISTRATOR).map((u) => u.id);
    if (!ids.includes(referrerId)) ids.push(referrerId);
    this.events.sendOnCommit(realmId, { type: 'invites_changed' }, ids);
  }

  private expiry(minutes: number | null, now: Date): Date | null {
    return minutes === null ? null : new Date(now.getTime() + minutes * 60_000);
  }

  private joinUrl(realm: Realm, key: string): string {
    return `${this.realms.realmUrl(realm)}/join/${key}/`;
  }

  /** POST /invites (invite_users_backend + do_invite_users). */
  async invite(auth: AuthContext, o: InviteOptions): Promise<void> {
    if (!(await this.holds(auth, 'can_invite_users_group'))) throw Errors.insufficientPermission();
    this.checkRole(auth, o.inviteAs, o.inviteAs !== Role.MEMBER && o.inviteAs !== Role.GUEST);
    if (!o.emailsRaw) throw InviteErrors.noEmails();
    InvitesService.checkValidity(o.expiresInMinutes);
    const emails = inviteeEmails(o.emailsRaw);
    const streamIds = await this.accessChannels(auth, o.streamIds);
    const realm = auth.realm;
    let skipped: InviteeError[] = [];
    await runInTransaction(this.dataSource, async () => {
      const groupIds = o.groupIds?.length ? await this.groups.accessGroupsForInvite(auth, o.groupIds) : [];
      await this.repo.lockRealmInvites(realm.id);
      const now = new Date();
      const recent = await this.repo.countSentSince(realm.id, new Date(now.getTime() - 24 * 3600_000));
      if (emails.length + recent > INVITES_DAILY_MAX) throw InviteErrors.dailyLimit();

      const errors: InviteeError[] = [];
      const good: string[] = [];
      for (const email of emails) {
        if (email === '') continue;
        if (!isValidEmail(email) || !isEmailAddress(email)) errors.push([email, InviteeTexts.invalidAddress, false]);
        else good.push(email);
      }
      const existing = new Map(
        (await this.directory.usersByDeliveryEmails(realm.id, good)).map((u) => [u.deliveryEmail.toLowerCase(), u]),
      );
      skipped = [];
      const toInvite: string[] = [];
      for (const email of good) {
        const user = existing.get(email.toLowerCase());
        if (!user) toInvite.push(email);
        else if (!user.isActive) skipped.push([email, InviteeTexts.deactivated, true]);
        else skipped.push([email, InviteeTexts.alreadyHasAccount, false]);
      }
      if (errors.length > 0) throw InviteErrors.someInvalid([...errors, ...skipped]);
      if (skipped.length > 0 && skipped.length === emails.length) throw InviteErrors.nobodyInvited(skipped);

      const expiresAt = this.expiry(o.expiresInMinutes, now);
      const rows = await this.repo.insert(
        toInvite.map((email) => ({
          realmId: realm.id,
          referredById: auth.user.id,
          isMultiuse: false,
          email,
          invitedAs: o.inviteAs,
          includeRealmDefaultSubscriptions: o.includeRealmDefaultSubscriptions,
          notifyReferrerOnJoin: o.notifyReferrerOnJoin,
          streamIds,
          groupIds,
          key: generateKey(),
          status: InvitationStatus.PENDING,
          invitedAt: now,
          expiresAt,
        })),
      );
      for (const row of rows) await this.sendInvitationEmail(auth, realm, row);
      await this.notifyChanged(realm.id, auth.user.id);
    });
    if (skipped.length > 0) throw InviteErrors.someSkipped(skipped);
  }

  private async sendInvitationEmail(auth: AuthContext, realm: Realm, row: Invitation): Promise<void> {
    let validity = 'until it is revoked';
    if (row.expiresAt) {
      const minutes = Math.round((row.expiresAt.getTime() - Date.now()) / 60_000);
      validity =
        minutes >= 2 * 24 * 60
          ? `for ${Math.round(minutes / (24 * 60))} days`
          : minutes >= 120
            ? `for ${Math.round(minutes / 60)} hours`
            : `for ${Math.max(1, minutes)} minutes`;
    }
    await this.email.send({
      template: 'invitation',
      to: row.email!,
      fromName: realm.name,
      context: {
        realmName: realm.name,
        realmUrl: this.realms.realmUrl(realm),
        referrerName: auth.user.fullName,
        referrerEmail: auth.user.deliveryEmail,
        activateUrl: this.joinUrl(realm, row.key),
        validity,
      },
    });
  }

  /** POST /invites/multiuse (generate_multiuse_invite_backend + do_create_multiuse_invite_link). */
  async createMultiuse(
    auth: AuthContext,
    o: Omit<InviteOptions, 'emailsRaw' | 'notifyReferrerOnJoin'>,
  ): Promise<{ invite_link: string }> {
    if (!(await this.holds(auth, 'create_multiuse_invite_group'))) throw Errors.insufficientPermission();
    this.checkRole(auth, o.inviteAs, o.inviteAs !== Role.MEMBER && o.inviteAs !== Role.GUEST);
    InvitesService.checkValidity(o.expiresInMinutes);
    const streamIds = await this.accessChannels(auth, o.streamIds);
    return runInTransaction(this.dataSource, async () => {
      const groupIds = o.groupIds?.length ? await this.groups.accessGroupsForInvite(auth, o.groupIds) : [];
      const now = new Date();
      const [row] = await this.repo.insert([
        {
          realmId: auth.realm.id,
          referredById: auth.user.id,
          isMultiuse: true,
          email: null,
          invitedAs: o.inviteAs,
          includeRealmDefaultSubscriptions: o.includeRealmDefaultSubscriptions,
          notifyReferrerOnJoin: false,
          streamIds,
          groupIds,
          key: generateKey(),
          status: InvitationStatus.PENDING,
          invitedAt: now,
          expiresAt: this.expiry(o.expiresInMinutes, now),
        },
      ]);
      await this.notifyChanged(auth.realm.id, auth.user.id);
      return { invite_link: this.joinUrl(auth.realm, row.key) };
    });
  }

  /** GET /invites (do_get_invites_controlled_by_user): administrators see all, others their own. */
  async list(auth: AuthContext): Promise<InviteDict[]> {
    const isAdmin = auth.user.role <= Role.ADMINISTRATOR;
    const rows = await this.repo.listValid(auth.realm.id, isAdmin ? null : auth.user.id, new Date());
    const ts = (d: Date | null) => (d === null ? null : Math.floor(d.getTime() / 1000));
    const single = rows
      .filter((r) => !r.isMultiuse)
      .map((r) => ({
        email: r.email,
        invited_by_user_id: r.referredById,
        invited: ts(r.invitedAt),
        expiry_date: ts(r.expiresAt),
        id: r.id,
        invited_as: r.invitedAs,
        is_multiuse: false,
        notify_referrer_on_join: r.notifyReferrerOnJoin,
      }));
    const multi = rows
      .filter((r) => r.isMultiuse)
      .map((r) => ({
        invited_by_user_id: r.referredById,
        invited: ts(r.invitedAt),
        expiry_date: ts(r.expiresAt),
        id: r.id,
        link_url: this.joinUrl(auth.realm, r.key),
        invited_as: r.invitedAs,
        is_multiuse: true,
      }));
    return [...single, ...multi];
  }

  /** access_invite_by_id / access_multiuse_invite_by_id. */
  private async accessInvite(auth: AuthContext, id: number, multiuse: boolean): Promise<Invitation> {
    const row = await this.repo.findInRealm(auth.realm.id, id, multiuse);
    // A used or revoked email invitation is gone in Zulip (deleted); so it is here.
    if (!row || (!multiuse && row.status !== InvitationStatus.PENDING)) throw InviteErrors.noSuchInvitation();
    if (row.referredById !== auth.user.id) this.checkRole(auth, row.invitedAs, true);
    if (multiuse && row.status === InvitationStatus.REVOKED) throw InviteErrors.alreadyRevoked();
    return row;
  }

  /** DELETE /invites/{id} and DELETE /invites/multiuse/{id}. */
  async revoke(auth: AuthContext, id: number, multiuse: boolean): Promise<void> {
    await runInTransaction(this.dataSource, async () => {
      const row = await this.accessInvite(auth, id, multiuse);
      await this.repo.setStatus(row.id, InvitationStatus.REVOKED);
      await this.notifyChanged(auth.realm.id, row.referredById);
    });
  }

  /** POST /invites/{id}/resend (do_send_user_invite_email): counts against the daily cap again. */
  async resend(auth: AuthContext, id: number): Promise<void> {
    await runInTransaction(this.dataSource, async () => {
      const row = await this.accessInvite(auth, id, false);
      await this.repo.lockRealmInvites(auth.realm.id);
      const now = new Date();
      const recent = await this.repo.countSentSince(auth.realm.id, new Date(now.getTime() - 24 * 3600_000));
      // This invitation counts once already if it was sent within the day.
      const already = row.invitedAt.getTime() >= now.getTime() - 24 * 3600_000 ? 1 : 0;
      if (recent - already + 1 > INVITES_DAILY_MAX) throw InviteErrors.dailyLimit();
      await this.repo.touchSent(row.id, now);
      await this.sendInvitationEmail(auth, auth.realm, { ...row, invitedAt: now });
      await this.notifyChanged(auth.realm.id, row.referredById);
    });
  }

  /** What a registration link leads to (no write). */
  async lookup(hostRealmId: number | null, key: string): Promise<JoinTarget> {
    if (!/^[a-z0-9]{1,40}$/.test(key)) return { outcome: 'invalid' };
    const row = await this.repo.findByKey(key);
    return this.checkLink(hostRealmId, row);
  }

  /** A link works on its own organization's host only, while pending and unexpired. */
  private async checkLink(hostRealmId: number | null, row: Invitation | null): Promise<JoinTarget> {
    if (!row || row.status !== InvitationStatus.PENDING || row.realmId !== hostRealmId) return { outcome: 'invalid' };
    if (row.expiresAt !== null && row.expiresAt.getTime() <= Date.now()) return { outcome: 'invalid' };
    const realm = await this.realms.getRealm(row.realmId);
    if (realm.deactivated) return { outcome: 'refused', reason: 'This organization has been deactivated.' };
    return { outcome: 'ok', invitation: row, realm };
  }

  /**
   * Accepting an invitation: creates the account with the invited role (do_create_user), its
   * channels and groups, marks an email invitation used, and tells the referrer's clients.
   */
  async register(
    hostRealmId: number | null,
    key: string,
    input: { email?: string; fullName: string; password: string },
  ): Promise<RegisterResult> {
    if (!/^[a-z0-9]{1,40}$/.test(key)) return { outcome: 'invalid' };
    try {
      return await runInTransaction(this.dataSource, async () => {
        const target = await this.checkLink(hostRealmId, await this.repo.lockByKey(key));
        if (target.outcome === 'invalid') return target;
        if (target.outcome === 'refused') return { ...target, status: 400 };
        const { invitation, realm } = target;
        const email = invitation.isMultiuse ? (input.email ?? '').trim() : invitation.email!;
        if (!isValidEmail(email) || !isEmailAddress(email)) throw UserErrors.enterValidEmail();
        const fullName = checkFullName(input.fullName);
        if (!isStrongEnoughPassword(input.password)) throw UserErrors.passwordTooWeak();
        const user = await this.admin.createAccount(realm, {
          email,
          fullName,
          password: input.password,
          role: invitation.invitedAs,
        });
        await this.subscriptions.subscribeNewUser(
          realm.id,
          user.id,
          invitation.streamIds,
          invitation.includeRealmDefaultSubscriptions,
        );
        await this.groups.addNewUserToGroups(realm.id, user.id, invitation.groupIds);
        if (!invitation.isMultiuse) await this.repo.setStatus(invitation.id, InvitationStatus.USED);
        await this.repo.revokePendingForEmail(realm.id, email);
        await this.notifyChanged(realm.id, invitation.referredById);
        if (invitation.notifyReferrerOnJoin && !invitation.isMultiuse) {
          const [referrer] = await this.directory.usersByIds(realm.id, [invitation.referredById]);
          if (referrer?.isActive) {
            await this.send.sendNotificationBotMessage(
              realm,
              referrer.id,
              `@_**${user.fullName}|${user.id}** accepted your invitation to join Zulip!`,
            );
          }
        }
        this.logger.log(`user ${user.id} joined realm ${realm.id} through invitation ${invitation.id}`);
        return {
          outcome: 'created',
          email,
          realmName: realm.name,
          realmUrl: this.realms.realmUrl(realm),
        } as const;
      });
    } catch (err) {
      if (err instanceof ZulipError) return { outcome: 'refused', reason: err.message, status: 400 };
      throw err;
    }
  }
}
