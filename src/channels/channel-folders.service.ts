import { ParamErrors } from '../common/errors/param.errors';
import { Injectable } from '@nestjs/common';
import { UserDirectoryService } from '../users/user-directory.service';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { AuthContext } from '../common/auth/auth.types';
import { Errors } from '../common/errors/zulip-error';
import { runInTransaction } from '../database/transaction';
import type { ChannelFolderUpdateEvent } from '../events/client-events';
import type { ChannelFolder } from './channel-folder.entity';
import { renderDescription } from './channel-description';
import { ChannelEvents } from './channel-events';
import { channelFolderNameError, cleanDescription } from './channels.policy';
import { ChannelFoldersRepository } from './channel-folders.repository';
import { isUniqueViolation } from '../common/errors/unique-violation';
import { ChannelsRepository } from './channels.repository';
import { ChannelFolderErrors } from './channel.errors';

/** Zulip's ChannelFolderDict (plus `order`, which newer servers send). */
export function channelFolderDict(f: ChannelFolder): Record<string, unknown> {
  return {
    id: f.id,
    name: f.name,
    description: f.description,
    rendered_description: f.renderedDescription,
    order: f.order,
    creator_id: f.creatorId,
    date_created: Math.floor(f.dateCreated.getTime() / 1000),
    is_archived: f.isArchived,
  };
}

export interface UpdateFolderInput {
  name?: string;
  description?: string;
  isArchived?: boolean;
}

/** Channel folders (zerver/views/channel_folders.py, zerver/actions/channel_folders.py). */
@Injectable()
export class ChannelFoldersService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly folders: ChannelFoldersRepository,
    private readonly channels: ChannelsRepository,
    private readonly events: ChannelEvents,
    private readonly directory: UserDirectoryService,
  ) {}

  private async checkName(realmId: number, name: string): Promise<void> {
    const error = channelFolderNameError(name);
    if (error) throw Errors.badRequest(error);
    if (await this.folders.nameInUse(realmId, name)) throw ChannelFolderErrors.nameInUse();
  }

  private async everyone(realmId: number): Promise<number[]> {
    return (await this.directory.activeUsers(realmId)).map((u) => u.id);
  }

  async create(auth: AuthContext, name: string, rawDescription: string): Promise<number> {
    const description = cleanDescription(rawDescription);
    return runInTransaction(this.dataSource, async () => {
      const realmId = auth.realm.id;
      await this.checkName(realmId, name);
      const folder = await this.folders.insertIfNameFree({
        realmId,
        name,
        description,
        renderedDescription: renderDescription(description),
        creatorId: auth.user.id,
      });
      if (!folder) throw ChannelFolderErrors.nameInUse();
      this.events.channelFolderAdd(realmId, channelFolderDict(folder), await this.everyone(realmId));
      return folder.id;
    });
  }

  /** PATCH /channel_folders (try_reorder_realm_channel_folders): every folder, each once. */
  async reorder(auth: AuthContext, order: number[]): Promise<void> {
    await runInTransaction(this.dataSource, async () => {
      const realmId = auth.realm.id;
      const ids = await this.folders.lockAllInRealm(realmId);
      const known = new Set(ids);
      if (order.length !== ids.length || new Set(order).size !== order.length || order.some((id) => !known.has(id))) {
        throw ParamErrors.invalidOrderMapping();
      }
      await this.folders.setOrder(order);
      this.events.channelFolderReorder(realmId, order, await this.everyone(realmId));
    });
  }

  async list(auth: AuthContext, includeArchived: boolean): Promise<Array<Record<string, unknown>>> {
    return (await this.folders.listInRealm(auth.realm.id, includeArchived)).map(channelFolderDict);
  }

  async update(auth: AuthContext, folderId: number, raw: UpdateFolderInput): Promise<void> {
    const input = {
      ...raw,
      description: raw.description === undefined ? undefined : cleanDescription(raw.description),
    };
    await runInTransaction(this.dataSource, async () => {
      const realmId = auth.realm.id;
      const folder = await this.folders.findByIdInRealm(realmId, folderId);
      if (!folder) throw ChannelFolderErrors.invalidId();
      const send = async (data: ChannelFolderUpdateEvent['data']) =>
        this.events.channelFolderUpdate(realmId, folder.id, data, await this.everyone(realmId));

      if (input.name !== undefined && input.name !== folder.name) {
        await this.checkName(realmId, input.name);
        try {
          await this.folders.update(folder.id, { name: input.name });
        } catch (err) {
          if (isUniqueViolation(err)) throw ChannelFolderErrors.nameInUse();
          throw err;
        }
        await send({ name: input.name });
      }
      if (input.description !== undefined && input.description !== folder.description) {
        const rendered = renderDescription(input.description);
        await this.folders.update(folder.id, { description: input.description, renderedDescription: rendered });
        await send({ description: input.description, rendered_description: rendered });
      }
      if (input.isArchived !== undefined && input.isArchived !== folder.isArchived) {
        if (input.isArchived && (await this.folders.hasChannels(folder.id))) {
          throw ChannelFolderErrors.notEmpty();
        }
        try {
          await this.folders.update(folder.id, { isArchived: input.isArchived });
        } catch (err) {
          // Unarchiving next to an active folder of the same name.
          if (isUniqueViolation(err)) throw ChannelFolderErrors.nameInUse();
          throw err;
        }
        await send({ is_archived: input.isArchived });
      }
    });
  }
}
