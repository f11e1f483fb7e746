import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/**
 * A custom profile field of a realm (Zulip's CustomProfileField). `field_data` is JSON text
 * (options of a list field, the subtype of an external account field), as Zulip stores it.
 */
@Entity({ name: 'custom_profile_field' })
@Index('custom_profile_field_realm_name_key', ['realmId', 'name'], { unique: true })
export class CustomProfileField {
  @PrimaryGeneratedColumn()
  id: number;

  @Index('custom_profile_field_realm_id_idx')
  @Column({ name: 'realm_id', type: 'integer' })
  realmId: number;

  @Column({ type: 'varchar', length: 40 })
  name: string;

  @Column({ type: 'varchar', length: 80, default: '' })
  hint: string;

  /** Sort order of the realm's fields. */
  @Column({ name: 'order', type: 'integer', default: 0 })
  order: number;

  @Column({ name: 'display_in_profile_summary', type: 'boolean', default: false })
  displayInProfileSummary: boolean;

  @Column({ type: 'boolean', default: false })
  required: boolean;

  @Column({ name: 'editable_by_user', type: 'boolean', default: true })
  editableByUser: boolean;

  /** 1 short text … 8 pronouns (CustomProfileFieldType). */
  @Column({ name: 'field_type', type: 'smallint', default: 1 })
  fieldType: number;

  @Column({ name: 'field_data', type: 'text', default: '' })
  fieldData: string;
}

/** One user's value of one custom profile field (Zulip's CustomProfileFieldValue). */
@Entity({ name: 'custom_profile_field_value' })
@Index('custom_profile_field_value_user_field_key', ['userProfileId', 'fieldId'], { unique: true })
export class CustomProfileFieldValue {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'user_profile_id', type: 'integer' })
  userProfileId: number;

  @Index('custom_profile_field_value_field_idx')
  @Column({ name: 'field_id', type: 'integer' })
  fieldId: number;

  @Column({ type: 'text' })
  value: string;

  @Column({ name: 'rendered_value', type: 'text', nullable: true })
  renderedValue: string | null;
}
