import { Module } from '@nestjs/common';
import { StaticController } from './static.controller';

/** Files served under `/static/` without credentials (a leaf: depends only on the markdown library's data). */
@Module({ controllers: [StaticController] })
export class StaticModule {}
