import { ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ZulipError } from '../errors/zulip-error';
import { RequireRole } from './decorators';
import { RolesGuard } from './roles.guard';

const OWNER = 100;
const ADMIN = 200;
const MODERATOR = 300;
const MEMBER = 400;
const GUEST = 600;

class Routes {
  @RequireRole('owner') ownerOnly(): void {}
  @RequireRole('admin') adminOnly(): void {}
  @RequireRole('moderator') moderatorOnly(): void {}
  @RequireRole('member') memberOnly(): void {}
  open(): void {}
}

@RequireRole('admin')
class AdminController {
  anything(): void {}
  @RequireRole('owner') stricter(): void {}
}

function context(cls: new () => object, method: string, role: number | undefined): ExecutionContext {
  const handler = (cls.prototype as Record<string, unknown>)[method] as () => void;
  const user = role === undefined ? undefined : { user: { id: 1, role }, realm: { id: 1 } };
  return {
    getHandler: () => handler,
    getClass: () => cls,
    switchToHttp: () => ({ getRequest: () => ({ user }) }),
  } as unknown as ExecutionContext;
}

const guard = new RolesGuard(new Reflector());

function refusal(cls: new () => object, method: string, role: number): ZulipError | undefined {
  try {
    expect(guard.canActivate(context(cls, method, role))).toBe(true);
    return undefined;
  } catch (err) {
    expect(err).toBeInstanceOf(ZulipError);
    return err as ZulipError;
  }
}

describe('RolesGuard', () => {
  const table: Array<[string, number, string | undefined]> = [
    ['ownerOnly', OWNER, undefined],
    ['ownerOnly', ADMIN, 'Must be an organization owner'],
    ['ownerOnly', MODERATOR, 'Must be an organization owner'],
    ['ownerOnly', MEMBER, 'Must be an organization owner'],
    ['ownerOnly', GUEST, 'Must be an organization owner'],
    ['adminOnly', OWNER, undefined],
    ['adminOnly', ADMIN, undefined],
    ['adminOnly', MODERATOR, 'Must be an organization administrator'],
    ['adminOnly', MEMBER, 'Must be an organization administrator'],
    ['adminOnly', GUEST, 'Must be an organization administrator'],
    ['moderatorOnly', OWNER, undefined],
    ['moderatorOnly', ADMIN, undefined],
    ['moderatorOnly', MODERATOR, undefined],
    ['moderatorOnly', MEMBER, 'Must be an organization moderator'],
    ['moderatorOnly', GUEST, 'Must be an organization moderator'],
    ['memberOnly', OWNER, undefined],
    ['memberOnly', ADMIN, undefined],
    ['memberOnly', MODERATOR, undefined],
    ['memberOnly', MEMBER, undefined],
    ['memberOnly', GUEST, 'Must be an organization member'],
  ];

  it.each(table)('%s with role %i → %s', (method, role, msg) => {
    const err = refusal(Routes, method, role);
    if (msg === undefined) {
      expect(err).toBeUndefined();
      return;
    }
    expect(err?.status).toBe(400);
    expect(err?.code).toBe('UNAUTHORIZED_PRINCIPAL');
    expect(err?.toBody()).toEqual({ result: 'error', msg, code: 'UNAUTHORIZED_PRINCIPAL' });
  });

  it('lets every role through a route without @RequireRole', () => {
    for (const role of [OWNER, ADMIN, MODERATOR, MEMBER, GUEST]) expect(refusal(Routes, 'open', role)).toBeUndefined();
  });

  it('applies a class-level requirement, and a method-level one overrides it', () => {
    expect(refusal(AdminController, 'anything', MEMBER)?.message).toBe('Must be an organization administrator');
    expect(refusal(AdminController, 'anything', ADMIN)).toBeUndefined();
    expect(refusal(AdminController, 'stricter', ADMIN)?.message).toBe('Must be an organization owner');
  });

  it('does not refuse an unauthenticated (public) request; the auth guard decides those', () => {
    expect(guard.canActivate(context(Routes, 'adminOnly', undefined))).toBe(true);
  });
});
