import { randomInt } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { ZulipError } from '../common/errors/zulip-error';
import { currentManager, onCommit, runInTransaction } from '../database/transaction';
import { EmailService, isEmailAddress } from '../email/email.service';
import { Realm } from '../realm/realm.entity';
import { RealmService } from '../realm/realm.service';
import { Role } from '../realm/system-groups';
import { EmailChangeState, EmailChangeStatus } from './email-change.entity';
import { UserAdminService } from './user-admin.service';
import { UserProfile } from './user.entity';
import { SettingsErrors, UserErrors } from './user.errors';
import { UsersRepository } from './users.repository';
import { isValidEmail } from './users.service';

/** How long a confirmation link works (Zulip's CONFIRMATION_LINK_DEFAULT_VALIDITY_DAYS). */
const LINK_VALIDITY_MS = 24 * 3600 * 1000;
const KEY_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** Zulip's confirmation key: 24 random lowercase letters and digits. */
function generateKey(): string {
  let key = '';
  for (let i = 0; i < 24; i++) key += KEY_ALPHABET[randomInt(KEY_ALPHABET.length)];
  return key;
}

export type ConfirmEmailChangeResult =
  | { outcome: 'changed'; oldEmail: string; newEmail: string; realmName: string }
  | { outcome: 'invalid' }
  | { outcome: 'refused'; reason: string };

/**
 * Changing one's own email address (Zulip's do_start_email_change_process and
 * confirm_email_change): PATCH /settings `email` records the request and mails a confirmation
 * link to the new address; opening the link (GET /accounts/confirm_new_email/{key}) checks
 * everything again, changes the address and tells the old one.
 */
@Injectable()
export class EmailChangeService {
  private readonly logger = new Logger('EmailChange');

  constructor(
    private readonly users: UsersRepository,
    private readonly admin: UserAdminService,
    private readonly realms: RealmService,
    private readonly email: EmailService,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  private get em(): EntityManager {
    return currentManager() ?? this.dataSource.manager;
  }

  /** validate_email_change_request. */
  private async validate(realm: Realm, user: UserProfile, newEmail: string): Promise<void> {
    if (realm.emailChangesDisabled && user.role > Role.ADMINISTRATOR) throw SettingsErrors.emailChangesDisabled();
    if (!isValidEmail(newEmail) || !isEmailAddress(newEmail)) throw SettingsErrors.invalidAddress();
    const existing = await this.users.findByEmailInRealm(realm.id, newEmail);
    if (existing && existing.id !== user.id) throw UserErrors.emailAlreadyInUse();
  }

  /** Inside the caller's transaction: checks, records the request, queues the confirmation email. */
  async start(realm: Realm, user: UserProfile, newEmail: string): Promise<void> {
    await this.validate(realm, user, newEmail);
    await this.em.update(
      EmailChangeStatus,
      { userId: user.id, status: EmailChangeState.PENDING },
      { status: EmailChangeState.REVOKED },
    );
    const key = generateKey();
    await this.em.insert(EmailChangeStatus, {
      realmId: realm.id,
      userId: user.id,
      oldEmail: user.deliveryEmail,
      newEmail,
      key,
      status: EmailChangeState.PENDING,
      expiresAt: new Date(Date.now() + LINK_VALIDITY_MS),
    });
    const realmUrl = this.realms.realmUrl(realm);
    await this.email.send({
      template: 'confirm_new_email',
      to: newEmail,
      fromName: `${realm.name} account security`,
      context: {
        realmName: realm.name,
        realmUrl,
        fullName: user.fullName,
        oldEmail: user.deliveryEmail,
        newEmail,
        activateUrl: `${realmUrl}/accounts/confirm_new_email/${key}/`,
      },
    });
  }

  /** Opening the link: one use, within its validity, for an active user of a live realm. */
  async confirm(key: string): Promise<ConfirmEmailChangeResult> {
    if (!/^[a-z0-9]{1,40}$/.test(key)) return { outcome: 'invalid' };
    try {
      return await runInTransaction(this.dataSource, async () => {
        const request = await this.em
          .createQueryBuilder(EmailChangeStatus, 'c')
          .setLock('pessimistic_write')
          .where('c.confirmation_key = :key', { key })
          .getOne();
        if (!request || request.status !== EmailChangeState.PENDING || request.expiresAt.getTime() < Date.now()) {
          return { outcome: 'invalid' } as const;
        }
        const realm = await this.realms.getRealm(request.realmId);
        const user = await this.users.lockUser(request.realmId, request.userId);
        // A newer change already happened (Zulip: not expected, checked all the same).
        if (!user || user.deliveryEmail !== request.oldEmail) return { outcome: 'invalid' } as const;
        if (realm.deactivated)
          return { outcome: 'refused', reason: 'This organization has been deactivated.' } as const;
        if (!user.isActive) return { outcome: 'refused', reason: 'This account has been deactivated.' } as const;
        await this.validate(realm, user, request.newEmail);
        await this.admin.changeDeliveryEmail(realm, user, request.newEmail);
        await this.em.update(EmailChangeStatus, { id: request.id }, { status: EmailChangeState.USED });
        const realmUrl = this.realms.realmUrl(realm);
        await this.email.send({
          template: 'notify_change_in_email',
          to: request.oldEmail,
          fromName: `${realm.name} account security`,
          context: { realmName: realm.name, realmUrl, newEmail: request.newEmail },
        });
        onCommit(() => this.logger.log(`user ${user.id} confirmed an email change (request ${request.id})`));
        return {
          outcome: 'changed',
          oldEmail: request.oldEmail,
          newEmail: request.newEmail,
          realmName: realm.name,
        } as const;
      });
    } catch (err) {
      // The checks of validate() (the address was taken meanwhile, changes were disabled...).
      if (err instanceof ZulipError) return { outcome: 'refused', reason: err.message };
      throw err;
    }
  }
}
