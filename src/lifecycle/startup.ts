import { Client } from 'pg';

/**
 * A start-up failure with a known cause: its message is one sentence saying what went wrong and
 * how to fix it, printed alone (no stack trace).
 */
export class StartupError extends Error {}

/** The URL with its password replaced by `****`, for messages and logs. */
export function maskUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '****';
    return u.toString();
  } catch {
    return '(an invalid URL)';
  }
}

interface PgLikeError {
  code?: string;
  message?: string;
}

/** A PostgreSQL connection failure as one sentence and its fix. */
export function explainDatabaseError(err: unknown, url: string, setting = 'DATABASE_URL'): StartupError | undefined {
  const e = (err ?? {}) as PgLikeError & { errors?: PgLikeError[] };
  const code = e.code ?? e.errors?.[0]?.code;
  const where = maskUrl(url);
  const u = (() => {
    try {
      return new URL(url);
    } catch {
      return undefined;
    }
  })();
  const user = decodeURIComponent(u?.username ?? '') || 'postgres';
  const database = decodeURIComponent(u?.pathname.slice(1) ?? '') || user;
  switch (code ?? '') {
    case 'ECONNREFUSED':
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'ETIMEDOUT':
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
    case 'ECONNRESET': {
      const why = code === 'ECONNREFUSED' ? 'connection refused' : code === 'ENOTFOUND' ? 'unknown host' : code;
      return new StartupError(
        `Cannot reach PostgreSQL at ${where} (${why}). Start PostgreSQL or correct the host and port in ${setting}.`,
      );
    }
    case '28P01':
    case '28000':
      return new StartupError(
        `PostgreSQL at ${where} refused the credentials of user "${user}". Correct the user name and password in ${setting}.`,
      );
    case '3D000':
      return new StartupError(
        `PostgreSQL at ${where} has no database "${database}". Create it (createdb ${database}) or correct ${setting}.`,
      );
    case '42501':
      return new StartupError(
        `PostgreSQL user "${user}" lacks a permission this server needs at ${where} (${e.message ?? 'permission denied'}). Grant it, or use the database's owner in ${setting}.`,
      );
    default:
      break;
  }
  if (/timeout/i.test(e.message ?? '')) {
    return new StartupError(
      `PostgreSQL at ${where} did not answer in time. Check that it is running and reachable, or correct ${setting}.`,
    );
  }
  return undefined;
}

/** Connects once, to turn the common failures into one clear sentence; returns the server version. */
export async function checkDatabase(url: string): Promise<string> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    const res = await client.query<{ server_version: string }>('SHOW server_version');
    return res.rows[0]?.server_version.split(' ')[0] ?? '?';
  } catch (err) {
    throw explainDatabaseError(err, url) ?? err;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Listen errors (port taken, not allowed) as one sentence and the fix. */
export function explainListenError(
  err: unknown,
  host: string,
  port: number,
  setting = 'PORT',
): StartupError | undefined {
  const code = (err as { code?: string } | undefined)?.code;
  if (code === 'EADDRINUSE') {
    return new StartupError(
      `Port ${port} on ${host} is already in use. Stop the program using it, or set ${setting} to a free port.`,
    );
  }
  if (code === 'EACCES') {
    return new StartupError(
      `Not allowed to listen on port ${port} on ${host}. Use a port above 1023 (${setting}), or run behind a reverse proxy.`,
    );
  }
  if (code === 'EADDRNOTAVAIL') {
    return new StartupError(
      `This machine has no address ${host}. Set HOST to one of its addresses (127.0.0.1, or 0.0.0.0 for all).`,
    );
  }
  return undefined;
}
