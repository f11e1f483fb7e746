import { becameOnline, legacyPresence, modernPresence, presenceChange, presenceDicts } from './presence-format';

describe('presence format and rules', () => {
  const joined = 1_000;

  it('missing times read as the date joined, in whole seconds', () => {
    expect(modernPresence({ lastActive: null, lastConnected: 5_000.7, dateJoined: joined })).toEqual({
      active_timestamp: 1_000,
      idle_timestamp: 5_000,
    });
  });

  it('legacy: active within 70 s of last connected, else idle at the connected time', () => {
    expect(legacyPresence({ lastActive: 4_940, lastConnected: 5_000, dateJoined: joined }).aggregated).toEqual({
      client: 'website',
      status: 'active',
      timestamp: 4_940,
    });
    expect(legacyPresence({ lastActive: 4_900, lastConnected: 5_000, dateJoined: joined }).website).toEqual({
      client: 'website',
      status: 'idle',
      timestamp: 5_000,
      pushable: false,
    });
  });

  it('keys: user ids when slim, emails otherwise', () => {
    const rows = [{ userId: 7, email: 'a@x', lastActive: 10, lastConnected: 10, dateJoined: joined }];
    expect(Object.keys(presenceDicts(rows, true))).toEqual(['7']);
    expect(Object.keys(presenceDicts(rows, false))).toEqual(['a@x']);
  });

  it('a ping changes the stored times only when they are more than 55 s old', () => {
    expect(presenceChange(undefined, false, 100)).toEqual({ lastConnected: 100, lastActive: null });
    expect(presenceChange({ lastActive: 100, lastConnected: 100 }, true, 150)).toBeNull();
    expect(presenceChange({ lastActive: 100, lastConnected: 100 }, false, 160)).toEqual({
      lastActive: 100,
      lastConnected: 160,
    });
    expect(presenceChange({ lastActive: 50, lastConnected: 140 }, true, 160)).toEqual({
      lastActive: 160,
      lastConnected: 160,
    });
    expect(presenceChange({ lastActive: 140, lastConnected: 140 }, false, 160)).toBeNull();
  });

  it('came online: an active ping after 130 s (200 − 60 − 10) without activity', () => {
    expect(becameOnline(null, true, 100)).toBe(true);
    expect(becameOnline(0, true, 131)).toBe(true);
    expect(becameOnline(0, true, 130)).toBe(false);
    expect(becameOnline(null, false, 100)).toBe(false);
  });
});
