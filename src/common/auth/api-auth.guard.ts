import { ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import type { Request } from 'express';
import { Errors, ZulipError } from '../errors/zulip-error';
import { IS_PUBLIC } from './decorators';

/**
 * Global, default-deny authentication. Checks the Authorization header's form first so that
 * malformed headers get Zulip's messages, then lets the Passport Basic strategy verify the key.
 */
@Injectable()
export class ApiAuthGuard extends AuthGuard('basic') {
  constructor(private readonly reflector: Reflector) {
    super();
  }

  override canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    const isPublic = this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [context.getHandler(), context.getClass()]);
    if (isPublic) return true;
    const req = context.switchToHttp().getRequest<Request>();
    const header = req.headers.authorization;
    if (!header) throw Errors.notLoggedIn();
    const [scheme, credentials] = header.trim().split(/\s+/, 2);
    if (scheme.toLowerCase() !== 'basic') {
      throw Errors.badRequest('This endpoint requires HTTP basic authentication.');
    }
    const decoded = Buffer.from(credentials ?? '', 'base64').toString('utf8');
    if (!credentials || !/^[A-Za-z0-9+/=_-]+$/.test(credentials) || !decoded.includes(':')) {
      throw Errors.unauthorized('Invalid authorization header for basic auth');
    }
    return super.canActivate(context) as Promise<boolean>;
  }

  override handleRequest<TUser>(err: unknown, user: TUser): TUser {
    if (err instanceof ZulipError) throw err;
    if (err) throw err;
    if (!user) throw Errors.unauthorized('Invalid API key');
    return user;
  }
}
