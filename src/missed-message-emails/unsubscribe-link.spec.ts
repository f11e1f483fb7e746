import { readUnsubscribeToken, unsubscribeToken } from './unsubscribe-link';

describe('unsubscribe links', () => {
  const token = unsubscribeToken('secret', 'missed_messages', 2, 10);

  it('reads back what it signed', () => {
    expect(readUnsubscribeToken('secret', 'missed_messages', token)).toEqual({
      kind: 'missed_messages',
      realmId: 2,
      userId: 10,
    });
  });

  it('refuses other secrets, kinds, users and shapes', () => {
    expect(readUnsubscribeToken('other', 'missed_messages', token)).toBeNull();
    expect(readUnsubscribeToken('secret', 'digest', token)).toBeNull();
    expect(readUnsubscribeToken('secret', 'constructor', token)).toBeNull();
    expect(readUnsubscribeToken('secret', 'missed_messages', token.replace('.10.', '.11.'))).toBeNull();
    expect(readUnsubscribeToken('secret', 'missed_messages', 'x')).toBeNull();
    expect(readUnsubscribeToken('secret', 'missed_messages', '99999999999.1.' + 'a'.repeat(32))).toBeNull();
  });
});
