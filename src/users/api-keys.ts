import {
  createCipheriv,
  createDecipheriv,
  createHmac,
  hkdfSync,
  randomBytes,
  randomInt,
  scrypt,
  timingSafeEqual,
} from 'node:crypto';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
export const API_KEY_LENGTH = 32;

/** A fresh API key: 32 random characters from [A-Za-z0-9], like Zulip's. */
export function generateApiKey(): string {
  let key = '';
  for (let i = 0; i < API_KEY_LENGTH; i++) key += ALPHABET[randomInt(ALPHABET.length)];
  return key;
}

export function isWellFormedApiKey(key: string): boolean {
  return key.length === API_KEY_LENGTH && /^[A-Za-z0-9]+$/.test(key);
}

/**
 * API keys are never stored in clear: an HMAC-SHA256 digest (keyed by the server secret) is the
 * unique lookup column, and an AES-256-GCM ciphertext lets the key-returning endpoints answer.
 */
export class ApiKeyCodec {
  private readonly hmacKey: Buffer;
  private readonly aesKey: Buffer;

  constructor(secret: string) {
    this.hmacKey = Buffer.from(hkdfSync('sha256', secret, 'zulip-ts', 'api-key-digest', 32));
    this.aesKey = Buffer.from(hkdfSync('sha256', secret, 'zulip-ts', 'api-key-encryption', 32));
  }

  digest(key: string): string {
    return createHmac('sha256', this.hmacKey).update(key, 'utf8').digest('hex');
  }

  /** Constant-time comparison of a presented key with a stored digest. */
  matches(key: string, digest: string): boolean {
    const a = Buffer.from(this.digest(key), 'hex');
    const b = Buffer.from(digest, 'hex');
    return a.length === b.length && timingSafeEqual(a, b);
  }

  encrypt(key: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.aesKey, iv);
    const ct = Buffer.concat([cipher.update(key, 'utf8'), cipher.final()]);
    return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ct.toString('base64url')].join(
      ':',
    );
  }

  decrypt(stored: string): string {
    const [version, iv, tag, ct] = stored.split(':');
    if (version !== 'v1' || !iv || !tag || !ct) throw new Error('Unknown API key ciphertext format');
    const decipher = createDecipheriv('aes-256-gcm', this.aesKey, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]).toString('utf8');
  }
}

const SCRYPT = { N: 1 << 15, r: 8, p: 1, keylen: 32, maxmem: 64 * 1024 * 1024 };

/**
 * Password hashes computed at once. Each takes 32 MiB and a libuv pool thread (4 by default, shared
 * with file and DNS work) for tens of milliseconds: the rest wait their turn in order.
 */
export const SCRYPT_CONCURRENCY = 2;

class Semaphore {
  private active = 0;
  private readonly waiting: Array<() => void> = [];
  /** Most holders seen at once, and how many ran in all (tests read them through {@link scryptLoad}). */
  peak = 0;
  total = 0;

  constructor(private readonly limit: number) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.active >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.active++;
    this.peak = Math.max(this.peak, this.active);
    this.total++;
    try {
      return await work();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.active--;
    }
  }

  get queued(): number {
    return this.waiting.length;
  }
}

const scryptSlots = new Semaphore(SCRYPT_CONCURRENCY);

/** How many scrypt computations ran at once at most (and wait now), for tests and metrics. */
export function scryptLoad(): { peak: number; queued: number; total: number; resetPeak: () => void } {
  return {
    peak: scryptSlots.peak,
    queued: scryptSlots.queued,
    total: scryptSlots.total,
    resetPeak: () => (scryptSlots.peak = 0),
  };
}

function scryptAsync(password: string, salt: Buffer, N: number, r: number, p: number, keylen: number): Promise<Buffer> {
  return scryptSlots.run(
    () =>
      new Promise<Buffer>((resolve, reject) =>
        scrypt(password, salt, keylen, { N, r, p, maxmem: SCRYPT.maxmem }, (err, key) =>
          err ? reject(err) : resolve(key),
        ),
      ),
  );
}

/**
 * Hashed in place of a missing hash (an unknown user, an account without a password), so that the
 * answer takes as long as for a real account and does not reveal which accounts exist.
 */
const DUMMY_HASH = [
  'scrypt',
  SCRYPT.N,
  SCRYPT.r,
  SCRYPT.p,
  'AAAAAAAAAAAAAAAAAAAAAA',
  'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
].join('$');

/** Slow password hash (scrypt, N=2^15), stored as `scrypt$N$r$p$salt$hash`. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scryptAsync(password, salt, SCRYPT.N, SCRYPT.r, SCRYPT.p, SCRYPT.keylen);
  return ['scrypt', SCRYPT.N, SCRYPT.r, SCRYPT.p, salt.toString('base64url'), hash.toString('base64url')].join('$');
}

/**
 * Whether `password` matches the stored hash. Without a usable hash (null, unknown format) it
 * still computes one scrypt, against a dummy, and answers false: the same cost either way.
 */
export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  const usable = stored !== null && /^scrypt\$\d+\$\d+\$\d+\$[A-Za-z0-9_-]+\$[A-Za-z0-9_-]+$/.test(stored);
  const [, n, r, p, salt, hash] = (usable ? stored : DUMMY_HASH).split('$');
  const expected = Buffer.from(hash, 'base64url');
  const actual = await scryptAsync(
    password,
    Buffer.from(salt, 'base64url'),
    Number(n),
    Number(r),
    Number(p),
    expected.length,
  );
  return usable && actual.length === expected.length && timingSafeEqual(actual, expected);
}
