import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/**
 * A realm linkifier (Zulip's RealmFilter): text matching `pattern` in messages and topics links
 * to `url_template` expanded with the pattern's named groups. Applied in `order`, then id.
 */
@Entity({ name: 'realm_filter' })
@Index('realm_filter_realm_pattern_key', ['realmId', 'pattern'], { unique: true })
export class RealmFilter {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'realm_id', type: 'integer' })
  realmId: number;

  @Column({ type: 'text' })
  pattern: string;

  @Column({ name: 'url_template', type: 'text' })
  urlTemplate: string;

  @Column({ type: 'integer', default: 0 })
  order: number;
}
