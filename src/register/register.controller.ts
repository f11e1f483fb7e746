import { Controller, HttpCode, Post, Req } from '@nestjs/common';
import type { Request } from 'express';
import type { AuthContext } from '../common/auth/auth.types';
import { CurrentUser } from '../common/auth/decorators';
import { Args } from '../common/http/params';
import { RegisterArgs } from './dto/register.dto';
import { RegisterService } from './register.service';

@Controller('api/v1')
export class RegisterController {
  constructor(private readonly register: RegisterService) {}

  @Post('register')
  @HttpCode(200)
  create(@CurrentUser() auth: AuthContext, @Args(RegisterArgs) args: RegisterArgs, @Req() req: Request) {
    const clientName = String(req.headers['user-agent'] ?? 'API').split(/[/ ]/)[0] || 'API';
    return this.register.register(auth, args, clientName);
  }
}
