import { clientNameFromUserAgent, defaultReadBySender } from './client-name';

describe('client names', () => {
  it.each([
    ['ZulipMobile/27.192 (Android 10)', 'ZulipMobile'],
    ['ZulipPython/0.9.0', 'ZulipPython'],
    ['Mozilla/5.0 (X11; Linux x86_64)', 'Mozilla'],
    ['ZulipElectron/5.9.3', 'ZulipElectron'],
    [undefined, 'Unspecified'],
    ['', 'Unspecified'],
  ])('%p → %s', (ua, name) => expect(clientNameFromUserAgent(ua)).toBe(name));

  it('marks messages read for their sender only from Zulip UIs', () => {
    for (const ui of [
      'website',
      'ZulipMobile',
      'ZulipElectron',
      'ZulipTerminal',
      'ZulipDesktop',
      'ios',
      'Zulip desktop app',
    ]) {
      expect(defaultReadBySender(ui)).toBe(true);
    }
    for (const api of ['ZulipPython', 'Unspecified', 'Internal', 'node-superagent'])
      expect(defaultReadBySender(api)).toBe(false);
  });
});
