import { Controller, Delete, Param, Post } from '@nestjs/common';
import type { AuthContext } from '../common/auth/auth.types';
import { CurrentUser, RequireRole } from '../common/auth/decorators';
import { Args } from '../common/http/params';
import { PathIntPipe } from '../common/http/path-int.pipe';
import { isDbId } from '../database/ids';
import { AddPlaygroundArgs } from './dto/playground.dto';
import { PlaygroundErrors } from './playground.errors';
import { PlaygroundService } from './playground.service';

/** Zulip's zerver/views/realm_playgrounds.py: administrators only (the list comes with /register). */
@Controller('api/v1/realm/playgrounds')
export class PlaygroundController {
  constructor(private readonly playgrounds: PlaygroundService) {}

  @Post()
  @RequireRole('admin')
  async create(@CurrentUser() auth: AuthContext, @Args(AddPlaygroundArgs) args: AddPlaygroundArgs) {
    PlaygroundService.checkLanguageParam(args.pygments_language);
    const id = await this.playgrounds.add(auth, {
      name: args.name,
      pygmentsLanguage: args.pygments_language,
      urlTemplate: args.url_template,
    });
    return { id };
  }

  @Delete(':playground_id')
  @RequireRole('admin')
  async remove(@CurrentUser() auth: AuthContext, @Param('playground_id', PathIntPipe) id: number) {
    if (!isDbId(id)) throw PlaygroundErrors.notFound();
    await this.playgrounds.remove(auth, id);
    return {};
  }
}
