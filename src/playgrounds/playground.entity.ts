import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/**
 * A code playground of a realm (Zulip's RealmPlayground): code blocks in `pygments_language`
 * offer "View in <name>", opening `url_template` expanded with the code.
 */
@Entity({ name: 'realm_playground' })
@Index('realm_playground_realm_language_name_key', ['realmId', 'pygmentsLanguage', 'name'], { unique: true })
export class RealmPlayground {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'realm_id', type: 'integer' })
  realmId: number;

  @Column({ type: 'text' })
  name: string;

  @Column({ name: 'pygments_language', type: 'varchar', length: 40 })
  pygmentsLanguage: string;

  @Column({ name: 'url_template', type: 'text' })
  urlTemplate: string;
}
