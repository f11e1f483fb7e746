/**
 * A job worker in a process of its own, for the queue's crash and multi-process tests:
 * `node -r test/helpers/ts-register.js test/helpers/job-worker-process.ts` with DATABASE_URL and
 * JOBS_* in the environment. It runs the jobs module (not the HTTP app) with the test kinds and
 * prints "ready" once its workers are running; SIGTERM shuts it down gracefully.
 */
import 'reflect-metadata';
import { Injectable, Module, OnModuleInit } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { loadConfig } from '../../src/common/config/config';
import { ConfigModule } from '../../src/common/config/config.module';
import { dataSourceOptions } from '../../src/data-source-options';
import { JobsModule } from '../../src/jobs/jobs.module';
import { JobsService } from '../../src/jobs/jobs.service';
import { MetricsModule } from '../../src/metrics/metrics.module';
import { registerTestKinds } from './jobs';

const config = loadConfig();

@Injectable()
class TestKinds implements OnModuleInit {
  constructor(
    private readonly jobs: JobsService,
    private readonly ds: DataSource,
  ) {}
  onModuleInit(): void {
    registerTestKinds(this.jobs, this.ds);
  }
}

@Module({
  imports: [
    ConfigModule.forRoot(config),
    TypeOrmModule.forRoot(dataSourceOptions(config.databaseUrl!, config.dbPoolSize)),
    MetricsModule,
    JobsModule,
  ],
  providers: [TestKinds],
})
class WorkerModule {}

async function main(): Promise<void> {
  const app = await NestFactory.createApplicationContext(WorkerModule, { logger: ['error', 'warn'] });
  process.once('SIGTERM', () => {
    void app.close().then(() => process.exit(0));
  });
  process.stdout.write('ready\n');
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
