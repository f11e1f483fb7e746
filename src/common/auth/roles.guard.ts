import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { Role } from '../roles';
import { Errors } from '../errors/zulip-error';
import type { AuthContext } from './auth.types';
import { REQUIRED_ROLE, RequiredRole } from './decorators';

/** Enforces `@RequireRole()` with Zulip's errors (HTTP 400, code UNAUTHORIZED_PRINCIPAL). */
@Injectable()
export class RolesGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    const required = this.reflector.getAllAndOverride<RequiredRole | undefined>(REQUIRED_ROLE, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (!required) return true;
    const auth = context.switchToHttp().getRequest<{ user?: AuthContext }>().user;
    if (!auth) return true; // public route; nothing to check
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
