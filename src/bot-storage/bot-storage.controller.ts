import { Controller, Delete, Get, Put } from '@nestjs/common';
import type { AuthContext } from '../common/auth/auth.types';
import { CurrentUser } from '../common/auth/decorators';
import { Args } from '../common/http/params';
import { BotStorageService } from './bot-storage.service';
import { StorageKeysArgs, UpdateStorageArgs } from './dto/bot-storage.dto';

/** GET/PUT/DELETE /bot_storage (zerver/views/storage.py): a bot's own state. */
@Controller('api/v1/bot_storage')
export class BotStorageController {
  constructor(private readonly storage: BotStorageService) {}

  @Put()
  async update(@CurrentUser() auth: AuthContext, @Args(UpdateStorageArgs) args: UpdateStorageArgs) {
    await this.storage.update(auth.user, args.storage);
    return {};
  }

  @Get()
  async get(@CurrentUser() auth: AuthContext, @Args(StorageKeysArgs) args: StorageKeysArgs) {
    return { storage: await this.storage.get(auth.user, args.keys) };
  }

  @Delete()
  async remove(@CurrentUser() auth: AuthContext, @Args(StorageKeysArgs) args: StorageKeysArgs) {
    await this.storage.remove(auth.user, args.keys);
    return {};
  }
}
