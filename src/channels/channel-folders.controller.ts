import { Controller, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import type { AuthContext } from '../common/auth/auth.types';
import { CurrentUser, RequireRole } from '../common/auth/decorators';
import { Args } from '../common/http/params';
import { PathIntPipe } from '../common/http/path-int.pipe';
import { ChannelFoldersService } from './channel-folders.service';
import {
  CreateChannelFolderArgs,
  GetChannelFoldersArgs,
  ReorderChannelFoldersArgs,
  UpdateChannelFolderArgs,
} from './dto/channel-folders.dto';

@Controller('api/v1/channel_folders')
export class ChannelFoldersController {
  constructor(private readonly folders: ChannelFoldersService) {}

  @Post('create')
  @HttpCode(200)
  @RequireRole('admin')
  async create(@CurrentUser() auth: AuthContext, @Args(CreateChannelFolderArgs) args: CreateChannelFolderArgs) {
    return { channel_folder_id: await this.folders.create(auth, args.name, args.description) };
  }

  @Get()
  async list(@CurrentUser() auth: AuthContext, @Args(GetChannelFoldersArgs) args: GetChannelFoldersArgs) {
    return { channel_folders: await this.folders.list(auth, args.include_archived) };
  }

  @Patch()
  @RequireRole('admin')
  async reorder(@CurrentUser() auth: AuthContext, @Args(ReorderChannelFoldersArgs) args: ReorderChannelFoldersArgs) {
    await this.folders.reorder(auth, args.order);
    return {};
  }

  @Patch(':channel_folder_id')
  @RequireRole('admin')
  async update(
    @CurrentUser() auth: AuthContext,
    @Param('channel_folder_id', PathIntPipe) folderId: number,
    @Args(UpdateChannelFolderArgs) args: UpdateChannelFolderArgs,
  ) {
    await this.folders.update(auth, folderId, {
      name: args.name,
      description: args.description,
      isArchived: args.is_archived,
    });
    return {};
  }
}
