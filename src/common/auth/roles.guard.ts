import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { Role } from '../roles';
import { Errors } from '../errors/zulip-error';
import type { AuthContext } from './auth.types';
import { HUMAN_ONLY, NO_GUESTS, REQUIRED_ROLE, RequiredRole } from './decorators';

/**
 * Enforces `@NoGuests()`, `@HumanOnly()` and `@RequireRole()` before parameters are parsed, with
 * Zulip's errors (role refusals: HTTP 400, code UNAUTHORIZED_PRINCIPAL).
 */
@Injectable()
export class RolesGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    const targets = [context.getHandler(), context.getClass()];
    const auth = context.switchToHttp().getRequest<{ user?: AuthContext }>().user;
    if (!auth) return true; // public route; nothing to check
    if (this.reflector.getAllAndOverride<boolean>(NO_GUESTS, targets) && auth.user.role === Role.GUEST) {
      throw Errors.notAllowedForGuests();
    }
    if (this.reflector.getAllAndOverride<boolean>(HUMAN_ONLY, targets) && auth.user.isBot) throw Errors.noBots();
    const required = this.reflector.getAllAndOverride<RequiredRole | undefined>(REQUIRED_ROLE, targets);
    if (!required) return true;
    const role = auth.user.role;
    switch (required) {
      case 'owner':
        if (role !== Role.OWNER) throw Errors.mustBeOwner();
        break;
      case 'admin':
        if (role > Role.ADMINISTRATOR) throw Errors.mustBeAdmin();
        break;
      case 'moderator':
        if (role > Role.MODERATOR) throw Errors.mustBeModerator();
        break;
      case 'member':
        if (role === Role.GUEST) throw Errors.mustBeMember();
        break;
    }
    return true;
  }
}
