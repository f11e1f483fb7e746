import { Module } from '@nestjs/common';
import { OpenApiController } from './openapi.controller';

/** The API document this server serves (a leaf). */
@Module({ controllers: [OpenApiController] })
export class OpenApiModule {}
