import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { isDbId } from '../database/ids';
import { currentManager } from '../database/transaction';
import { ChannelFolder } from './channel-folder.entity';

@Injectable()
export class ChannelFoldersRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private get em(): EntityManager {
    return currentManager() ?? this.dataSource.manager;
  }

  findByIdInRealm(realmId: number, id: number): Promise<ChannelFolder | null> {
    if (!isDbId(id)) return Promise.resolve(null);
    return this.em.findOne(ChannelFolder, { where: { realmId, id } });
  }

  listInRealm(realmId: number, includeArchived: boolean): Promise<ChannelFolder[]> {
    return this.em.find(ChannelFolder, {
      where: includeArchived ? { realmId } : { realmId, isArchived: false },
      order: { order: 'ASC', id: 'ASC' },
    });
  }

  /** Any folder of the realm (archived ones too) with this name, case-insensitively. */
  async nameInUse(realmId: number, name: string): Promise<boolean> {
    const rows = await this.em.query<unknown[]>(
      `SELECT 1 FROM channel_folder WHERE realm_id = $1 AND lower(name) = lower($2) LIMIT 1`,
      [realmId, name],
    );
    return rows.length > 0;
  }

  /** Creates the folder, or returns null when an active folder of that name exists (unique index). */
  async insertIfNameFree(
    values: Pick<ChannelFolder, 'realmId' | 'name' | 'description' | 'renderedDescription' | 'creatorId'>,
  ): Promise<ChannelFolder | null> {
    const rows = await this.em.query<Array<{ id: number }>>(
      `INSERT INTO channel_folder (realm_id, name, description, rendered_description, creator_id, "order")
       VALUES ($1, $2, $3, $4, $5, (SELECT coalesce(max("order") + 1, 0) FROM channel_folder WHERE realm_id = $1))
       ON CONFLICT (realm_id, lower(name)) WHERE NOT is_archived DO NOTHING
       RETURNING id`,
      [values.realmId, values.name, values.description, values.renderedDescription, values.creatorId],
    );
    if (rows.length === 0) return null;
    return this.em.findOneOrFail(ChannelFolder, { where: { id: rows[0].id } });
  }

  async update(id: number, values: Partial<ChannelFolder>): Promise<void> {
    await this.em.update(ChannelFolder, { id }, values);
  }

  /** Does any channel (archived ones included) sit in the folder? */
  async hasChannels(folderId: number): Promise<boolean> {
    const rows = await this.em.query<unknown[]>(`SELECT 1 FROM stream WHERE folder_id = $1 LIMIT 1`, [folderId]);
    return rows.length > 0;
  }

  /** Every folder of the realm (archived ones too), locked for a reorder. */
  async lockAllInRealm(realmId: number): Promise<number[]> {
    const rows = await this.em.query<Array<{ id: number }>>(
      `SELECT id FROM channel_folder WHERE realm_id = $1 ORDER BY id FOR UPDATE`,
      [realmId],
    );
    return rows.map((r) => r.id);
  }

  /** Sets each folder's `order` to its position in `ids`. */
  async setOrder(ids: number[]): Promise<void> {
    await this.em.query(
      `UPDATE channel_folder f SET "order" = o.position - 1
         FROM unnest($1::int[]) WITH ORDINALITY AS o(id, position) WHERE f.id = o.id`,
      [ids],
    );
  }
}
