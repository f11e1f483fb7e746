import { createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import type { AuthContext } from './auth.types';

export const IS_PUBLIC = 'zulip:public';
/** The route needs no authentication (server settings, dev key, health). */
export const Public = (): MethodDecorator & ClassDecorator => SetMetadata(IS_PUBLIC, true);

export type RequiredRole = 'owner' | 'admin' | 'moderator' | 'member';
export const REQUIRED_ROLE = 'zulip:required-role';
/** Coarse role check before the handler runs; refusals are 400 UNAUTHORIZED_PRINCIPAL, as Zulip. */
export const RequireRole = (role: RequiredRole): MethodDecorator & ClassDecorator => SetMetadata(REQUIRED_ROLE, role);

/** The authenticated user and realm. */
export const CurrentUser = createParamDecorator((_: unknown, ctx: ExecutionContext): AuthContext => {
  const req = ctx.switchToHttp().getRequest<{ user?: AuthContext }>();
  if (!req.user) throw new Error('CurrentUser used on a public route');
  return req.user;
});
