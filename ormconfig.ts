import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from './src/data-source-options';

/**
 * The DataSource the TypeORM CLI uses (`npm run migration:generate|run|revert`), built from
 * the same options as the app. It needs DATABASE_URL.
 */
const url = process.env.DATABASE_URL;
if (!url) throw new Error('DATABASE_URL must be set for the TypeORM CLI');

export default new DataSource(dataSourceOptions(url));
