import { Initial1795273649453 } from './1795273649453-Initial';

/** Every migration, in order (listed explicitly; no glob discovery). */
export const MIGRATIONS = [Initial1795273649453];
