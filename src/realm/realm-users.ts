import { Injectable } from '@nestjs/common';
import type { SystemGroupName } from './system-groups';

/**
 * What realm needs from users' tables (user_profile, user_group, group_group_membership,
 * custom_profile_field_value). users owns them and sits above realm (which may not import it), so
 * users implements this and fills the `RealmUsers` slot at start-up (docs/DEVELOPING.md, "Tables
 * and their owners"). Each call is the single query realm's own SQL used to be.
 */
export interface RealmUserLinks {
  /** Ids of the realm's active users, sorted (recipients of realm-wide events). */
  activeUserIds(realmId: number): Promise<number[]>;
  /** Creates the eight system groups of a new realm, nested owners ⊂ administrators ⊂ … ⊂ internet. */
  createSystemGroups(realmId: number): Promise<Map<SystemGroupName, number>>;
  /** The realm's system groups by name. */
  systemGroupIds(realmId: number): Promise<Map<SystemGroupName, number>>;
  /** Deletes users' values of a list field that name options the field no longer has. */
  deleteProfileValuesIn(fieldId: number, values: string[]): Promise<void>;
}

/** The slot users fills at start-up; realm's code calls it. */
@Injectable()
export class RealmUsers implements RealmUserLinks {
  private links: RealmUserLinks | null = null;

  /** Called once by users at start-up. */
  provide(links: RealmUserLinks): void {
    this.links = links;
  }

  private get impl(): RealmUserLinks {
    if (!this.links) throw new Error('no users module: realm cannot reach users and groups');
    return this.links;
  }

  activeUserIds(realmId: number) {
    return this.impl.activeUserIds(realmId);
  }
  createSystemGroups(realmId: number) {
    return this.impl.createSystemGroups(realmId);
  }
  systemGroupIds(realmId: number) {
    return this.impl.systemGroupIds(realmId);
  }
  deleteProfileValuesIn(fieldId: number, values: string[]) {
    return values.length === 0 ? Promise.resolve() : this.impl.deleteProfileValuesIn(fieldId, values);
  }
}
