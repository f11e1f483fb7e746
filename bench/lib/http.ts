/** A small keep-alive HTTP client for setting up data and for the events client. */
import http from 'node:http';

export interface Resp {
  status: number;
  body: Record<string, unknown>;
}

export const basicAuth = (email: string, key: string) => `Basic ${Buffer.from(`${email}:${key}`).toString('base64')}`;

export function request(
  agent: http.Agent,
  port: number,
  method: string,
  path: string,
  auth: string | null,
  form?: Record<string, string>,
): Promise<Resp> {
  const body = form ? new URLSearchParams(form).toString() : undefined;
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        agent,
        headers: {
          ...(auth ? { authorization: auth } : {}),
          ...(body !== undefined
            ? { 'content-type': 'application/x-www-form-urlencoded', 'content-length': Buffer.byteLength(body) }
            : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: Record<string, unknown>;
          try {
            parsed = JSON.parse(text) as Record<string, unknown>;
          } catch {
            parsed = { raw: text };
          }
          resolve({ status: res.statusCode ?? 0, body: parsed });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

/** Runs `fn` over `items` with at most `concurrency` in flight. */
export async function forEachLimit<T>(items: T[], concurrency: number, fn: (item: T, i: number) => Promise<void>) {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      await fn(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
}
