import { RealmUsers } from './realm-users';
import { ParamErrors } from '../common/errors/param.errors';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { runInTransaction } from '../database/transaction';
import { onUniqueViolation } from '../common/errors/unique-violation';
import { EventsService } from '../events/events.service';
import { CustomProfileField } from './custom-profile-field.entity';
import { CustomProfileFieldsRepository } from './custom-profile-fields.repository';
import { replaceNul } from './text-checks';
import {
  customProfileFieldDict,
  DEFAULT_EXTERNAL_ACCOUNTS,
  FieldData,
  FieldType,
  isDefaultExternalField,
  storedFieldData,
  validateCustomProfileField,
} from './custom-profile-fields.policy';
import { CustomProfileFieldErrors } from './realm.errors';

export interface CreateFieldInput {
  name: string;
  hint: string;
  fieldType: number;
  fieldData?: FieldData;
  displayInProfileSummary: boolean;
  required: boolean;
  editableByUser: boolean;
}

export interface UpdateFieldInput {
  name?: string;
  hint?: string;
  fieldData?: FieldData;
  displayInProfileSummary?: boolean;
  required?: boolean;
  editableByUser?: boolean;
}

const MAX_SUMMARY_FIELDS = 2;

function parseStoredData(field: CustomProfileField): FieldData {
  if (!field.fieldData) return {};
  try {
    const parsed = JSON.parse(field.fieldData) as unknown;
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as FieldData) : {};
  } catch {
    return {};
  }
}

/**
 * Custom profile field definitions (zerver/views/custom_profile_fields.py and
 * zerver/actions/custom_profile_fields.py). Every change sends the realm's full field list in a
 * `custom_profile_fields` event.
 */
/** Unique index on (realm_id, name): the arbiter when two requests use one label at once. */
const FIELD_NAME_KEY = 'custom_profile_field_realm_name_key';

@Injectable()
export class CustomProfileFieldsService {
  constructor(
    private readonly fields: CustomProfileFieldsRepository,
    private readonly events: EventsService,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly realmUsers: RealmUsers,
  ) {}

  async listForApi(realmId: number): Promise<Record<string, unknown>[]> {
    return (await this.fields.listForRealm(realmId)).map(customProfileFieldDict);
  }

  listFields(realmId: number): Promise<CustomProfileField[]> {
    return this.fields.listForRealm(realmId);
  }

  findField(realmId: number, id: number): Promise<CustomProfileField | null> {
    return this.fields.findInRealm(realmId, id);
  }

  private summaryLimitError() {
    return CustomProfileFieldErrors.tooManySummaryFields(MAX_SUMMARY_FIELDS);
  }

  async createField(realmId: number, input: CreateFieldInput): Promise<number> {
    const fieldData = input.fieldData ?? {};
    return runInTransaction(this.dataSource, async () => {
      if (input.displayInProfileSummary && (await this.fields.countSummaryFields(realmId)) >= MAX_SUMMARY_FIELDS) {
        throw this.summaryLimitError();
      }
      validateCustomProfileField(input.name, input.hint, input.fieldType, fieldData, input.displayInProfileSummary);
      let values: Partial<CustomProfileField>;
      if (isDefaultExternalField(input.fieldType, fieldData)) {
        const subtype = fieldData.subtype as string;
        const def = DEFAULT_EXTERNAL_ACCOUNTS[subtype];
        values = {
          name: def.name,
          hint: def.hint,
          fieldType: FieldType.EXTERNAL_ACCOUNT,
          fieldData: JSON.stringify({ subtype }),
        };
      } else {
        values = {
          name: input.name,
          hint: replaceNul(input.hint),
          fieldType: input.fieldType,
          fieldData: storedFieldData(input.fieldType, fieldData),
        };
      }
      if (await this.fields.findByName(realmId, values.name!)) {
        throw CustomProfileFieldErrors.labelInUse();
      }
      const field = await onUniqueViolation(
        () =>
          this.fields.insert({
            ...values,
            realmId,
            displayInProfileSummary: input.displayInProfileSummary,
            required: input.required,
            editableByUser: input.editableByUser,
          }),
        FIELD_NAME_KEY,
        () => CustomProfileFieldErrors.labelInUse(),
      );
      await this.notify(realmId);
      return field.id;
    });
  }

  async updateField(realmId: number, fieldId: number, input: UpdateFieldInput): Promise<void> {
    await runInTransaction(this.dataSource, async () => {
      const field = await this.fields.findInRealm(realmId, fieldId);
      if (!field) throw CustomProfileFieldErrors.fieldNotFound(fieldId);
      if (
        input.displayInProfileSummary === true &&
        (await this.fields.countSummaryFields(realmId, field.id)) >= MAX_SUMMARY_FIELDS
      ) {
        throw this.summaryLimitError();
      }
      const stored = parseStoredData(field);
      if (field.fieldType === FieldType.EXTERNAL_ACCOUNT && isDefaultExternalField(field.fieldType, stored)) {
        const changesMore =
          (input.name !== undefined && input.name !== field.name) ||
          (input.hint !== undefined && input.hint !== field.hint) ||
          (input.fieldData !== undefined && JSON.stringify(input.fieldData) !== JSON.stringify(stored));
        if (changesMore) throw CustomProfileFieldErrors.defaultFieldNotUpdatable();
      }
      validateCustomProfileField(
        input.name ?? field.name,
        input.hint ?? field.hint,
        field.fieldType,
        input.fieldData ?? stored,
        input.displayInProfileSummary ?? field.displayInProfileSummary,
      );
      const values: Partial<CustomProfileField> = {};
      if (input.name !== undefined) values.name = input.name;
      if (input.hint !== undefined) values.hint = replaceNul(input.hint);
      if (input.required !== undefined) values.required = input.required;
      if (input.editableByUser !== undefined) values.editableByUser = input.editableByUser;
      if (input.displayInProfileSummary !== undefined) values.displayInProfileSummary = input.displayInProfileSummary;
      if (field.fieldType === FieldType.SELECT || field.fieldType === FieldType.EXTERNAL_ACCOUNT) {
        if (input.fieldData !== undefined && field.fieldType === FieldType.SELECT) {
          const removed = Object.keys(stored).filter((k) => !(k in input.fieldData!));
          await this.realmUsers.deleteProfileValuesIn(field.id, removed);
        }
        if (input.fieldData !== undefined || field.fieldData === '') {
          values.fieldData = JSON.stringify(input.fieldData ?? {});
        }
      }
      if (values.name !== undefined && values.name !== field.name) {
        const clash = await this.fields.findByName(realmId, values.name);
        if (clash && clash.id !== field.id) throw CustomProfileFieldErrors.labelInUse();
      }
      if (Object.keys(values).length > 0) {
        await onUniqueViolation(
          () => this.fields.update(field.id, values),
          FIELD_NAME_KEY,
          () => CustomProfileFieldErrors.labelInUse(),
        );
      }
      await this.notify(realmId);
    });
  }

  async deleteField(realmId: number, fieldId: number): Promise<void> {
    await runInTransaction(this.dataSource, async () => {
      const field = await this.fields.findInRealm(realmId, fieldId);
      if (!field) throw CustomProfileFieldErrors.fieldNotFound(fieldId);
      await this.fields.delete(field.id);
      await this.notify(realmId);
    });
  }

  /** PATCH /realm/profile_fields: every field of the realm must appear in `order`. */
  async reorderFields(realmId: number, order: number[]): Promise<void> {
    await runInTransaction(this.dataSource, async () => {
      const position = new Map<number, number>();
      order.forEach((id, i) => position.set(id, i));
      const all = await this.fields.listForRealm(realmId);
      for (const field of all) if (!position.has(field.id)) throw ParamErrors.invalidOrderMapping();
      for (const field of all) await this.fields.update(field.id, { order: position.get(field.id)! });
      await this.notify(realmId);
    });
  }

  private async notify(realmId: number): Promise<void> {
    const fields = await this.listForApi(realmId);
    this.events.sendOnCommit(
      realmId,
      { type: 'custom_profile_fields', fields },
      await this.realmUsers.activeUserIds(realmId),
    );
  }
}
