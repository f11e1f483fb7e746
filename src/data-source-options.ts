import type { DataSourceOptions } from 'typeorm';
import { ENTITIES } from './entities';
import { MIGRATIONS } from './database/migrations';
import { installPgTypeParsers } from './database/pg-types';

installPgTypeParsers();

/** The one set of TypeORM options: used by the app, the tests and the TypeORM CLI (ormconfig.ts). */
export function dataSourceOptions(url: string, poolSize = 10): DataSourceOptions {
  return {
    type: 'postgres',
    url,
    entities: ENTITIES,
    migrations: MIGRATIONS,
    migrationsTableName: 'typeorm_migrations',
    synchronize: false,
    migrationsRun: false,
    // Off: a failed query's text and parameters (message content) must not reach the logs; errors
    // that matter are thrown and logged where they are handled.
    logging: false,
    extra: { max: poolSize, application_name: 'zulip-ts-server' },
  };
}
