import {
  API_KEY_LENGTH,
  ApiKeyCodec,
  generateApiKey,
  hashPassword,
  isWellFormedApiKey,
  SCRYPT_CONCURRENCY,
  scryptLoad,
  verifyPassword,
} from './api-keys';

const SECRET = 'unit-test-secret-0123456789-abcdefghijkl';

describe('API keys', () => {
  it('generates 32 characters of [A-Za-z0-9], different each time', () => {
    const keys = new Set(Array.from({ length: 50 }, () => generateApiKey()));
    expect(keys.size).toBe(50);
    for (const key of keys) {
      expect(key).toHaveLength(API_KEY_LENGTH);
      expect(key).toMatch(/^[A-Za-z0-9]{32}$/);
      expect(isWellFormedApiKey(key)).toBe(true);
    }
  });

  it.each([
    ['', false],
    ['a'.repeat(31), false],
    ['a'.repeat(33), false],
    ['a'.repeat(31) + '-', false],
    ['a'.repeat(31) + ' ', false],
    ['é'.repeat(32), false],
    ['aB3'.repeat(10) + 'zz', true],
  ])('isWellFormedApiKey(%j) = %s', (key, ok) => {
    expect(isWellFormedApiKey(key)).toBe(ok);
  });
});

describe('ApiKeyCodec', () => {
  const codec = new ApiKeyCodec(SECRET);
  const key = 'abcdefghijklmnopqrstuvwxyz012345';

  it('gives a stable hex SHA-256 digest for the same secret', () => {
    const d = codec.digest(key);
    expect(d).toMatch(/^[0-9a-f]{64}$/);
    expect(codec.digest(key)).toBe(d);
    expect(new ApiKeyCodec(SECRET).digest(key)).toBe(d);
  });

  it('gives different digests for different keys and different secrets', () => {
    expect(codec.digest(key)).not.toBe(codec.digest(key.replace('a', 'b')));
    expect(new ApiKeyCodec(SECRET + 'x').digest(key)).not.toBe(codec.digest(key));
  });

  it('matches a key against its digest only', () => {
    const d = codec.digest(key);
    expect(codec.matches(key, d)).toBe(true);
    expect(codec.matches(key.toUpperCase(), d)).toBe(false);
    expect(codec.matches(key, d.slice(0, 10))).toBe(false);
    expect(codec.matches(key, '')).toBe(false);
  });

  it('round-trips encryption, with a fresh IV each time', () => {
    const a = codec.encrypt(key);
    const b = codec.encrypt(key);
    expect(a).not.toBe(b);
    expect(a).toMatch(/^v1:/);
    expect(a).not.toContain(key);
    expect(codec.decrypt(a)).toBe(key);
    expect(codec.decrypt(b)).toBe(key);
    expect(new ApiKeyCodec(SECRET).decrypt(a)).toBe(key);
  });

  it('detects tampering with the ciphertext, tag or IV', () => {
    const stored = codec.encrypt(key);
    const [v, iv, tag, ct] = stored.split(':');
    const flip = (s: string) => {
      const buf = Buffer.from(s, 'base64url');
      buf[0] ^= 1;
      return buf.toString('base64url');
    };
    expect(() => codec.decrypt([v, iv, tag, flip(ct)].join(':'))).toThrow();
    expect(() => codec.decrypt([v, iv, flip(tag), ct].join(':'))).toThrow();
    expect(() => codec.decrypt([v, flip(iv), tag, ct].join(':'))).toThrow();
  });

  it('cannot decrypt under another secret', () => {
    expect(() => new ApiKeyCodec(SECRET + 'x').decrypt(codec.encrypt(key))).toThrow();
  });

  it('refuses unknown formats', () => {
    expect(() => codec.decrypt('v2:a:b:c')).toThrow('Unknown API key ciphertext format');
    expect(() => codec.decrypt('garbage')).toThrow('Unknown API key ciphertext format');
  });
});

describe('passwords', () => {
  it('hashes with scrypt and a random salt, and verifies', async () => {
    const a = await hashPassword('correct horse');
    const b = await hashPassword('correct horse');
    expect(a).toMatch(/^scrypt\$32768\$8\$1\$[A-Za-z0-9_-]+\$[A-Za-z0-9_-]+$/);
    expect(a).not.toBe(b);
    expect(a).not.toContain('correct horse');
    await expect(verifyPassword('correct horse', a)).resolves.toBe(true);
    await expect(verifyPassword('correct horse', b)).resolves.toBe(true);
  });

  it('refuses a wrong password, a missing hash and unknown schemes', async () => {
    const h = await hashPassword('secret');
    await expect(verifyPassword('Secret', h)).resolves.toBe(false);
    await expect(verifyPassword('', h)).resolves.toBe(false);
    await expect(verifyPassword('secret', null)).resolves.toBe(false);
    await expect(verifyPassword('secret', '')).resolves.toBe(false);
    await expect(verifyPassword('secret', h.replace(/^scrypt/, 'bcrypt'))).resolves.toBe(false);
    await expect(verifyPassword('secret', 'scrypt$32768$8$1$$')).resolves.toBe(false);
  });
});

describe('password hashing load', () => {
  it(`runs at most ${SCRYPT_CONCURRENCY} scrypt computations at once; the others wait their turn`, async () => {
    const stored = await hashPassword('right');
    scryptLoad().resetPeak();
    const pending = Array.from({ length: 6 }, (_, i) => verifyPassword(i % 2 ? 'right' : 'wrong', stored));
    await new Promise((r) => setImmediate(r));
    expect(scryptLoad().queued).toBe(6 - SCRYPT_CONCURRENCY);
    expect(await Promise.all(pending)).toEqual([false, true, false, true, false, true]);
    expect(scryptLoad().peak).toBe(SCRYPT_CONCURRENCY);
    expect(scryptLoad().queued).toBe(0);
  });

  it.each([
    ['no hash', null],
    ['an unknown format', 'bcrypt$whatever'],
    ['a malformed scrypt hash', 'scrypt$32768$8$1$'],
  ])('%s: one scrypt all the same (no timing difference), and false', async (_name, stored) => {
    const before = scryptLoad().total;
    expect(await verifyPassword('anything', stored)).toBe(false);
    expect(scryptLoad().total).toBe(before + 1);
  });
});
