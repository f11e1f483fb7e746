import { Controller, Delete, Get, Post } from '@nestjs/common';
import type { AuthContext } from '../common/auth/auth.types';
import { CurrentUser } from '../common/auth/decorators';
import { Args } from '../common/http/params';
import { AlertWordsService } from './alert-words.service';
import { AlertWordsArgs } from './dto/alert-words.dto';

/** GET/POST/DELETE /users/me/alert_words (zerver/views/alert_words.py). */
@Controller('api/v1/users/me/alert_words')
export class AlertWordsController {
  constructor(private readonly alertWords: AlertWordsService) {}

  @Get()
  async list(@CurrentUser() auth: AuthContext) {
    return { alert_words: await this.alertWords.wordsOf(auth.user.id) };
  }

  @Post()
  async add(@CurrentUser() auth: AuthContext, @Args(AlertWordsArgs) args: AlertWordsArgs) {
    return { alert_words: await this.alertWords.add(auth.user, args.alert_words) };
  }

  @Delete()
  async remove(@CurrentUser() auth: AuthContext, @Args(AlertWordsArgs) args: AlertWordsArgs) {
    return { alert_words: await this.alertWords.remove(auth.user, args.alert_words) };
  }
}
