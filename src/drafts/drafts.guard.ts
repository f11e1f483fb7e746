import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { AuthContext } from '../common/auth/auth.types';
import { DraftErrors } from './drafts.errors';

/**
 * Zulip's draft_endpoint: while the user has turned `enable_drafts_synchronization` off, every
 * /drafts request is refused, before its parameters are read.
 */
@Injectable()
export class DraftsSyncGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const auth = context.switchToHttp().getRequest<{ user?: AuthContext }>().user;
    if (auth && !auth.user.settings.enable_drafts_synchronization) throw DraftErrors.syncDisabled();
    return true;
  }
}
