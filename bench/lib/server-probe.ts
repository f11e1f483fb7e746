/**
 * Preloaded into the product server by the benchmark (`node -r dist/bench/lib/server-probe.js
 * dist/src/main.js`), so the server itself needs no benchmark code: it answers requests from
 * the benchmark over the IPC channel with its event-loop delay histogram (perf_hooks
 * monitorEventLoopDelay, 1 ms resolution) and its memory, and exits when the benchmark goes
 * away. Without an IPC channel it does nothing.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';

export type ProbeRequest = { id: number; cmd: 'eld-reset' | 'eld' | 'mem' | 'gc' };

if (process.send) {
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  histogram.enable();
  const ms = (ns: number) => Math.round((ns / 1e6) * 100) / 100;
  const collect = () => {
    const gc = (globalThis as { gc?: () => void }).gc;
    if (gc) for (let i = 0; i < 3; i++) gc();
  };
  process.on('message', (msg: ProbeRequest) => {
    let reply: Record<string, unknown>;
    switch (msg.cmd) {
      case 'eld-reset':
        histogram.reset();
        reply = {};
        break;
      case 'eld':
        reply = {
          maxMs: ms(histogram.max),
          p99Ms: ms(histogram.percentile(99)),
          p50Ms: ms(histogram.percentile(50)),
          meanMs: ms(histogram.mean),
        };
        break;
      case 'gc':
      case 'mem': {
        if (msg.cmd === 'gc') collect();
        const m = process.memoryUsage();
        reply = {
          rss: m.rss,
          heapUsed: m.heapUsed,
          heapTotal: m.heapTotal,
          external: m.external,
          arrayBuffers: m.arrayBuffers,
        };
        break;
      }
    }
    process.send!({ id: msg.id, ...reply });
  });
  // The benchmark died or closed the channel: don't outlive it.
  process.on('disconnect', () => process.kill(process.pid, 'SIGTERM'));
  // Keep the channel from holding the process open on its own.
  process.channel?.unref();
}
