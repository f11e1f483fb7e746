import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import type { Request } from 'express';
import { BasicStrategy as PassportBasicStrategy } from 'passport-http';
import { AuthService } from './auth.service';
import type { AuthContext } from '../common/auth/auth.types';

/** HTTP Basic: user name = delivery email, password = API key (zerver/decorator.py). */
@Injectable()
export class BasicStrategy extends PassportStrategy(PassportBasicStrategy, 'basic') {
  constructor(private readonly auth: AuthService) {
    super({ passReqToCallback: true });
  }

  async validate(req: Request, username: string, password: string): Promise<AuthContext> {
    return this.auth.authenticateApiKey(username, password, req.headers.host);
  }
}
