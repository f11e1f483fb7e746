import { Injectable } from '@nestjs/common';
import { realmUserUpdateEvent } from '../events/client-events';
import { EventsService } from '../events/events.service';
import { CustomProfileField } from '../realm/custom-profile-field.entity';
import { FieldType, isRenderableFieldType } from '../realm/custom-profile-fields.policy';
import { CustomProfileFieldsService } from '../realm/custom-profile-fields.service';
import { replaceNul } from '../realm/text-checks';
import { ProfileValuesRepository } from './profile-values.repository';
import {
  checkUserIdList,
  isEmptyProfileValue,
  ProfileDataEntry,
  renderProfileText,
  validateProfileValue,
} from './profile-values.policy';
import { CustomProfileFieldErrors } from '../realm/realm.errors';
import { UserErrors } from './user.errors';

/** `profile_data` of a user dict: field id → value (and rendered value for text fields). */
export type ProfileData = Record<string, { value: string; rendered_value?: string | null }>;

/**
 * Users' custom profile field values: the `profile_data` of user dicts, and the changes an
 * administrator makes with PATCH /users (Zulip's validate_user_custom_profile_data,
 * check_remove_custom_profile_field_value and do_update_user_custom_profile_data_if_changed).
 */
@Injectable()
export class ProfileDataService {
  constructor(
    private readonly values: ProfileValuesRepository,
    private readonly fields: CustomProfileFieldsService,
    private readonly events: EventsService,
  ) {}

  /** profile_data for each user of the realm (or of `userIds`); users without values get `{}`. */
  async profileDataByUser(realmId: number, userIds?: number[]): Promise<Map<number, ProfileData>> {
    const out = new Map<number, ProfileData>();
    for (const v of await this.values.valuesInRealm(realmId, userIds)) {
      let data = out.get(v.userId);
      if (!data) out.set(v.userId, (data = {}));
      data[String(v.fieldId)] = isRenderableFieldType(v.fieldType)
        ? { value: v.value, rendered_value: v.renderedValue }
        : { value: v.value };
    }
    return out;
  }

  private async fieldOrThrow(realmId: number, fieldId: number): Promise<CustomProfileField> {
    const field = await this.fields.findField(realmId, fieldId);
    if (!field) throw CustomProfileFieldErrors.fieldNotFound(fieldId);
    return field;
  }

  /** Validates one value and returns the text to store (person pickers store JSON lists). */
  private async validate(realmId: number, field: CustomProfileField, value: unknown): Promise<string> {
    if (field.fieldType !== FieldType.USER) return replaceNul(validateProfileValue(field, value));
    const ids = checkUserIdList(value);
    const users = new Map((await this.values.usersInRealm(realmId, ids)).map((u) => [u.id, u]));
    const invalid = ids.filter((id) => !users.has(id));
    if (invalid.length > 0) throw UserErrors.invalidIds(invalid);
    for (const id of ids) {
      const u = users.get(id)!;
      if (!u.isActive) throw UserErrors.deactivatedWithId(id);
      if (u.isBot) throw UserErrors.botWithId(id);
    }
    return JSON.stringify(ids);
  }

  /**
   * Applies `entries` to `userId` inside the caller's transaction: empty values are removed first
   * (in order), then the others are validated and written; each real change sends a
   * `realm_user` update to `recipients`.
   */
  async updateProfileData(
    realmId: number,
    userId: number,
    entries: ProfileDataEntry[],
    recipients: number[],
  ): Promise<void> {
    for (const entry of entries) {
      if (isEmptyProfileValue(entry.value)) {
        const field = await this.fieldOrThrow(realmId, entry.id);
        if (await this.values.deleteValue(userId, field.id)) {
          this.notify(realmId, userId, { id: field.id, value: null }, recipients);
        }
      }
    }
    const validated: Array<{ field: CustomProfileField; text: string }> = [];
    for (const entry of entries) {
      if (isEmptyProfileValue(entry.value)) continue;
      const field = await this.fieldOrThrow(realmId, entry.id);
      validated.push({ field, text: await this.validate(realmId, field, entry.value) });
    }
    for (const { field, text } of validated) {
      const existing = await this.values.findValue(userId, field.id);
      if (existing && existing.value === text) continue;
      const rendered = isRenderableFieldType(field.fieldType) ? renderProfileText(text) : null;
      await this.values.upsertValue(userId, field.id, text, rendered);
      const changed = rendered
        ? { id: field.id, value: text, rendered_value: rendered }
        : { id: field.id, value: text };
      this.notify(realmId, userId, changed, recipients);
    }
  }

  private notify(
    realmId: number,
    userId: number,
    field: { id: number; value: string | null; rendered_value?: string },
    recipients: number[],
  ): void {
    this.events.sendOnCommit(
      realmId,
      realmUserUpdateEvent({ user_id: userId, custom_profile_field: field }),
      recipients,
    );
  }
}
