import { Controller, Delete, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import type { AuthContext } from '../common/auth/auth.types';
import { CurrentUser } from '../common/auth/decorators';
import { Args } from '../common/http/params';
import { AddNavigationViewArgs, UpdateNavigationViewArgs } from './dto/navigation-views.dto';
import { NavigationViewsService } from './navigation-views.service';
import { ParamErrors } from '../common/errors/param.errors';

/**
 * The fragment in the path may contain slashes (`narrow/is/starred`): Express 5 gives the
 * segments of a `*fragment` wildcard as a list. Like Zulip, it is stripped and must not be blank.
 */
function fragmentOf(segments: string[] | string): string {
  const fragment = (Array.isArray(segments) ? segments.join('/') : segments).trim();
  if (!fragment) throw ParamErrors.cannotBeBlank('fragment');
  return fragment;
}

@Controller('api/v1/navigation_views')
export class NavigationViewsController {
  constructor(private readonly views: NavigationViewsService) {}

  @Get()
  async list(@CurrentUser() auth: AuthContext) {
    return { navigation_views: await this.views.list(auth.user.id) };
  }

  @Post()
  @HttpCode(200)
  async add(@CurrentUser() auth: AuthContext, @Args(AddNavigationViewArgs) args: AddNavigationViewArgs) {
    await this.views.add(auth, args.fragment, args.is_pinned, args.name);
    return {};
  }

  @Patch('*fragment')
  async update(
    @CurrentUser() auth: AuthContext,
    @Param('fragment') fragment: string[],
    @Args(UpdateNavigationViewArgs) args: UpdateNavigationViewArgs,
  ) {
    await this.views.update(auth, fragmentOf(fragment), args.is_pinned, args.name);
    return {};
  }

  @Delete('*fragment')
  async remove(@CurrentUser() auth: AuthContext, @Param('fragment') fragment: string[]) {
    await this.views.remove(auth, fragmentOf(fragment));
    return {};
  }
}
