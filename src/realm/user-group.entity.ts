import { Column, Entity, Index, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';

/**
 * A user group. Named groups (name not null) are what users see and manage; anonymous groups
 * (name null) exist only as the value of a group setting, like Zulip's plain UserGroup rows.
 */
@Entity({ name: 'user_group' })
@Index('user_group_realm_name_key', ['realmId', 'name'], { unique: true, where: 'name IS NOT NULL' })
export class UserGroup {
  @PrimaryGeneratedColumn()
  id: number;

  @Index('user_group_realm_id_idx')
  @Column({ name: 'realm_id', type: 'integer' })
  realmId: number;

  @Column({ type: 'varchar', length: 100, nullable: true })
  name: string | null;

  @Column({ type: 'text', default: '' })
  description: string;

  @Column({ name: 'is_system_group', type: 'boolean', default: false })
  isSystemGroup: boolean;

  @Column({ type: 'boolean', default: false })
  deactivated: boolean;

  @Column({ name: 'creator_id', type: 'integer', nullable: true })
  creatorId: number | null;

  @Column({ name: 'date_created', type: 'timestamptz', nullable: true })
  dateCreated: Date | null;

  @Column({ name: 'can_add_members_group', type: 'integer', nullable: true })
  canAddMembersGroup: number | null;

  @Column({ name: 'can_join_group', type: 'integer', nullable: true })
  canJoinGroup: number | null;

  @Column({ name: 'can_leave_group', type: 'integer', nullable: true })
  canLeaveGroup: number | null;

  @Column({ name: 'can_manage_group', type: 'integer', nullable: true })
  canManageGroup: number | null;

  @Column({ name: 'can_mention_group', type: 'integer', nullable: true })
  canMentionGroup: number | null;

  @Column({ name: 'can_remove_members_group', type: 'integer', nullable: true })
  canRemoveMembersGroup: number | null;
}

@Entity({ name: 'user_group_membership' })
export class UserGroupMembership {
  @PrimaryColumn({ name: 'user_group_id', type: 'integer' })
  userGroupId: number;

  @Index('user_group_membership_user_idx')
  @PrimaryColumn({ name: 'user_profile_id', type: 'integer' })
  userProfileId: number;
}

@Entity({ name: 'group_group_membership' })
export class GroupGroupMembership {
  @PrimaryColumn({ name: 'supergroup_id', type: 'integer' })
  supergroupId: number;

  @Index('group_group_membership_subgroup_idx')
  @PrimaryColumn({ name: 'subgroup_id', type: 'integer' })
  subgroupId: number;
}
