import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { map, Observable } from 'rxjs';
import { ignoredParams, ZulipRequest } from './request-params';

/** Marks a handler whose return value is sent as-is (not wrapped in Zulip's envelope). */
export const RAW_RESPONSE = Symbol('zulip:raw-response');

/**
 * Wraps every handler result in Zulip's success envelope:
 * `{result: "success", msg: "", ...data, ignored_parameters_unsupported?}`.
 */
@Injectable()
export class EnvelopeInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const raw = Reflect.getMetadata(RAW_RESPONSE, context.getHandler()) as boolean | undefined;
    if (raw || context.getType() !== 'http') return next.handle();
    const req = context.switchToHttp().getRequest<ZulipRequest>();
    return next.handle().pipe(
      map((data: unknown) => {
        const body: Record<string, unknown> = { result: 'success', msg: '' };
        if (data && typeof data === 'object') Object.assign(body, data);
        const ignored = ignoredParams(req);
        if (ignored.length > 0) body.ignored_parameters_unsupported = ignored;
        return body;
      }),
    );
  }
}
