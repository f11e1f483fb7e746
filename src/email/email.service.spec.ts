import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Logger } from '@nestjs/common';
import { loadConfig } from '../common/config/config';
import type { JobsService } from '../jobs/jobs.service';
import { EmailService } from './email.service';

describe('EmailService in production without EMAIL_HOST', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'zulip-email-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('queues nothing and logs an error for each refused email', async () => {
    const config = loadConfig({ SERVER_MODE: 'production', SECRET_KEY: 'x'.repeat(40), DATA_DIR: dir });
    const jobs = { register: jest.fn(), enqueue: jest.fn() };
    const error = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    try {
      const emails = new EmailService(jobs as unknown as JobsService, config);
      emails.onModuleInit();
      expect(error).toHaveBeenCalledWith(expect.stringContaining('EMAIL_HOST is not set'));
      expect(emails.canSend).toBe(false);
      const id = await emails.send({
        template: 'test',
        context: { serverUrl: 'https://chat.example.com', requestedBy: 'iago' },
        to: 'hamlet@zulip.com',
      });
      expect(id).toBeNull();
      expect(jobs.enqueue).not.toHaveBeenCalled();
      expect(error).toHaveBeenLastCalledWith('email "test" to 1 recipient(s) refused: EMAIL_HOST is not set');
      // The handler is still registered: a job queued by a configured instance fails for good here.
      expect(jobs.register).toHaveBeenCalledTimes(1);
    } finally {
      error.mockRestore();
    }
  });
});
