import { Injectable, PipeTransform } from '@nestjs/common';
import { Errors } from '../errors/zulip-error';

/**
 * Integer path segments (`/users/{user_id}`). Zulip's URL patterns only match digits, so any
 * other text is an unknown URL: 404 in the error envelope.
 */
@Injectable()
export class PathIntPipe implements PipeTransform<string, number> {
  transform(value: string): number {
    if (!/^[0-9]{1,18}$/.test(value)) throw Errors.routeNotFound();
    return Number(value);
  }
}
