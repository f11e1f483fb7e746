import { Controller, Delete, Get, Param, Patch, Post } from '@nestjs/common';
import type { AuthContext } from '../common/auth/auth.types';
import { CurrentUser, RequireRole } from '../common/auth/decorators';
import { Args } from '../common/http/params';
import { PathIntPipe } from '../common/http/path-int.pipe';
import { isDbId } from '../database/ids';
import { LinkifierArgs, ReorderLinkifiersArgs } from './dto/linkifier.dto';
import { LinkifierErrors } from './linkifier.errors';
import { LinkifierService } from './linkifier.service';

/** Zulip's zerver/views/realm_linkifiers.py: listing is for everyone, changes for administrators. */
@Controller('api/v1/realm')
export class LinkifierController {
  constructor(private readonly linkifiers: LinkifierService) {}

  @Get('linkifiers')
  async list(@CurrentUser() auth: AuthContext) {
    return { linkifiers: await this.linkifiers.list(auth.realm.id) };
  }

  @Post('filters')
  @RequireRole('admin')
  async create(@CurrentUser() auth: AuthContext, @Args(LinkifierArgs) args: LinkifierArgs) {
    return { id: await this.linkifiers.add(auth, args.pattern, args.url_template) };
  }

  @Patch('filters/:filter_id')
  @RequireRole('admin')
  async update(
    @CurrentUser() auth: AuthContext,
    @Param('filter_id', PathIntPipe) id: number,
    @Args(LinkifierArgs) args: LinkifierArgs,
  ) {
    if (!isDbId(id)) throw LinkifierErrors.notFound();
    await this.linkifiers.update(auth, id, args.pattern, args.url_template);
    return {};
  }

  @Delete('filters/:filter_id')
  @RequireRole('admin')
  async remove(@CurrentUser() auth: AuthContext, @Param('filter_id', PathIntPipe) id: number) {
    if (!isDbId(id)) throw LinkifierErrors.notFound();
    await this.linkifiers.remove(auth, id);
    return {};
  }

  @Patch('linkifiers')
  @RequireRole('admin')
  async reorder(@CurrentUser() auth: AuthContext, @Args(ReorderLinkifiersArgs) args: ReorderLinkifiersArgs) {
    await this.linkifiers.reorder(auth, args.ordered_linkifier_ids);
    return {};
  }
}
