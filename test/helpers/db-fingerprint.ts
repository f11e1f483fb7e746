import type { DataSource } from 'typeorm';

/**
 * A fingerprint of every table of the test database: per table, a hash of all its rows (each
 * row's text form, hashed and sorted, so no primary key or order is needed). Two fingerprints
 * differ exactly where a row was added, removed or changed. Meant for the small databases of API
 * tests (a few thousand rows): one statement, a few milliseconds.
 */
export type Fingerprint = Record<string, string>;

export interface FingerprintOptions {
  /** Tables left out (state that legitimately changes on any request). */
  exclude?: string[];
}

export async function fingerprintQuery(dataSource: DataSource, options: FingerprintOptions = {}): Promise<string> {
  const rows = await dataSource.query<Array<{ table_name: string }>>(
    `SELECT table_name FROM information_schema.tables
      WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name`,
  );
  const tables = rows.map((r) => r.table_name).filter((name) => !(options.exclude ?? []).includes(name));
  const ident = (name: string) => `"${name.replace(/"/g, '""')}"`;
  const columns = tables.map(
    (name) =>
      `(SELECT count(*) || ':' || coalesce(md5(string_agg(h, '' ORDER BY h)), '') ` +
      `FROM (SELECT md5(t::text) AS h FROM ${ident(name)} t) x) AS ${ident(name)}`,
  );
  return `SELECT ${columns.join(',\n')}`;
}

/** Takes fingerprints with a prepared query; `diff` names the tables that changed. */
export class DatabaseFingerprint {
  private constructor(
    private readonly dataSource: DataSource,
    private readonly sql: string,
  ) {}

  static async create(dataSource: DataSource, options: FingerprintOptions = {}): Promise<DatabaseFingerprint> {
    return new DatabaseFingerprint(dataSource, await fingerprintQuery(dataSource, options));
  }

  async take(): Promise<Fingerprint> {
    const [row] = await this.dataSource.query<Fingerprint[]>(this.sql);
    return row;
  }

  static diff(before: Fingerprint, after: Fingerprint): string[] {
    const tables = new Set([...Object.keys(before), ...Object.keys(after)]);
    return [...tables].filter((t) => before[t] !== after[t]).sort();
  }
}
