import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Logger } from '@nestjs/common';
import { simpleParser } from 'mailparser';
import { PermanentJobError } from '../jobs/job-kind';
import { createEmailTransport, OutgoingEmail } from './email-transport';

const email: OutgoingEmail = {
  from: { name: 'Zulip', address: 'noreply@example.com' },
  to: ['hamlet@zulip.com'],
  subject: 'Hello',
  text: 'Hi there\n',
  html: '<p>Hi there</p>',
};

describe('email transports', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'zulip-outbox-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('development without SMTP writes .eml, .txt and .html files and logs where', async () => {
    const logger = new Logger('test');
    const log = jest.spyOn(logger, 'log').mockImplementation(() => undefined);
    const outbox = join(dir, 'emails');
    const transport = createEmailTransport(
      { smtp: undefined, noreplyAddress: 'x@y.z', outboxDir: outbox, gatewayPattern: '' },
      'development',
      logger,
    );
    expect(transport.kind).toBe('outbox');
    await transport.deliver(email);
    const files = readdirSync(outbox).sort();
    expect(files).toHaveLength(3);
    expect(files.map((f) => f.slice(f.lastIndexOf('.')))).toEqual(['.eml', '.html', '.txt']);
    expect(files[0]).toMatch(/^\d{4}-\d\d-\d\dT[\d-]+Z-hamlet@zulip\.com-[0-9a-f]{6}\.eml$/);
    const parsed = await simpleParser(readFileSync(join(outbox, files[0])));
    expect(parsed.subject).toBe('Hello');
    expect(parsed.text).toBe('Hi there\n');
    expect(parsed.html).toBe('<p>Hi there</p>');
    expect(readFileSync(join(outbox, files[1]), 'utf8')).toBe('<p>Hi there</p>');
    expect(readFileSync(join(outbox, files[2]), 'utf8')).toBe('Hi there\n');
    expect(log).toHaveBeenCalledWith(expect.stringContaining(`email "Hello" to hamlet@zulip.com written to ${outbox}`));
  });

  it('production without SMTP refuses for good', async () => {
    const transport = createEmailTransport(
      { smtp: undefined, noreplyAddress: 'x@y.z', outboxDir: dir, gatewayPattern: '' },
      'production',
      new Logger('test'),
    );
    expect(transport.kind).toBe('disabled');
    await expect(transport.deliver(email)).rejects.toThrow(PermanentJobError);
    await expect(transport.deliver(email)).rejects.toThrow('outgoing email is not configured (set EMAIL_HOST)');
    expect(readdirSync(dir)).toEqual([]);
  });
});
