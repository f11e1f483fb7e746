/**
 * Markdown rendering throughput, without Nest or a database.
 *
 *   npm run build && node dist/bench/markdown.bench.js [seconds]
 *
 * Renders a mixed corpus for a bounded time (default 5 s after a 1 s
 * warm-up) and prints messages per second and per-message latency.  The
 * corpus is Zulip's Markdown test cases (test/fixtures/zulip/markdown-cases.json)
 * plus generated chat messages shaped like real traffic: mostly short
 * prose, with mentions, emoji, links, code, lists and quotes mixed in.
 */
import * as fs from 'fs';
import * as path from 'path';
import { collectReferences, renderMarkdown } from '../src/markdown';
import { demoRealmContext } from '../src/markdown/testing/demo-realm';

/** The imported cases, found from the checkout's root (the nearest package.json: run from bench/ or dist/bench/). */
function findCasesFile(): string | null {
  let dir = __dirname;
  while (!fs.existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
  const candidate = path.join(dir, 'test', 'fixtures', 'zulip', 'markdown-cases.json');
  return fs.existsSync(candidate) ? candidate : null;
}

function loadCaseInputs(): string[] {
  const file = findCasesFile();
  if (!file) return [];
  const data = JSON.parse(fs.readFileSync(file, 'utf8')) as { regular_tests: { input: string }[] };
  return data.regular_tests.map((c) => c.input);
}

/** Small deterministic PRNG (mulberry32) so runs are comparable. */
function prng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = (
  'the deploy looks good to me but we should check the logs before friday lunch meeting moved ' +
  'tomorrow review please thanks agreed build failed again flaky test on main fixed it merged ' +
  'customer asked about pricing docs link design mockups ready standup notes release branch'
).split(' ');

function generateMessages(count: number): string[] {
  const rand = prng(42);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rand() * items.length)];
  const sentence = (min: number, max: number) => {
    const n = min + Math.floor(rand() * (max - min));
    const words = Array.from({ length: n }, () => pick(WORDS));
    words[0] = words[0][0].toUpperCase() + words[0].slice(1);
    return words.join(' ') + pick(['.', '.', '!', '?']);
  };
  const shapes: (() => string)[] = [
    () => sentence(3, 12),
    () => sentence(3, 12),
    () => `${sentence(4, 10)} ${sentence(4, 10)}`,
    () => `@**King Hamlet** ${sentence(3, 10)}`,
    () => `@_**Iago|11** ${sentence(3, 8)} @*hamletcharacters*`,
    () => `${sentence(3, 8)} :smile: :+1:`,
    () => `${sentence(3, 8)} 🎉👍`,
    () => `See https://github.com/zulip/zulip/pull/${Math.floor(rand() * 30000)} for ${sentence(2, 6)}`,
    () => `Moved to #**Verona>${pick(WORDS)} ${pick(WORDS)}**, ${sentence(2, 6)}`,
    () => `**${pick(WORDS)}** ${sentence(3, 8)} \`${pick(WORDS)}()\` and *${pick(WORDS)}*`,
    () => `${sentence(2, 5)}\n\`\`\`python\ndef ${pick(WORDS)}(x):\n    return x + 1\n\`\`\``,
    () => `${sentence(2, 5)}\n* ${sentence(2, 5)}\n* ${sentence(2, 5)}\n  * ${sentence(2, 5)}`,
    () => `> ${sentence(4, 10)}\n\n${sentence(2, 6)}`,
    () => `${sentence(3, 6)}\n${sentence(3, 6)}\n${sentence(3, 6)}`,
    () => `[${pick(WORDS)}](https://example.com/${pick(WORDS)}.png) ${sentence(2, 4)}`,
    () => `Meeting at <time:2024-0${1 + Math.floor(rand() * 9)}-15T15:00:00Z> ${sentence(2, 5)}`,
    () => `${sentence(2, 4)} $$\\frac{a}{b}$$`,
    () => `| a | b |\n|---|---|\n| ${pick(WORDS)} | ${pick(WORDS)} |`,
  ];
  return Array.from({ length: count }, () => pick(shapes)());
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

function main(): void {
  const seconds = Number(process.argv[2] ?? process.env.BENCH_SECONDS ?? 5);
  const caseInputs = loadCaseInputs();
  const corpus = [...caseInputs, ...generateMessages(2000)];
  const context = demoRealmContext();
  const totalChars = corpus.reduce((sum, m) => sum + m.length, 0);

  // Warm up the JIT and the emoji tables.
  const warmupEnd = Date.now() + 1000;
  for (let i = 0; Date.now() < warmupEnd; i++) renderMarkdown(corpus[i % corpus.length], context);

  const latencies: number[] = [];
  let chars = 0;
  const end = process.hrtime.bigint() + BigInt(Math.round(seconds * 1e9));
  const started = process.hrtime.bigint();
  let i = 0;
  for (;;) {
    const message = corpus[i % corpus.length];
    const t0 = process.hrtime.bigint();
    collectReferences(message);
    renderMarkdown(message, context);
    const t1 = process.hrtime.bigint();
    latencies.push(Number(t1 - t0) / 1000);
    chars += message.length;
    i++;
    if (t1 >= end) break;
  }
  const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
  latencies.sort((a, b) => a - b);
  const mean = latencies.reduce((s, x) => s + x, 0) / latencies.length;

  console.log('Markdown render benchmark (collectReferences + renderMarkdown, one core)');
  console.log(
    `corpus: ${corpus.length} messages (${caseInputs.length} Zulip test cases), ` +
      `${(totalChars / corpus.length).toFixed(0)} chars on average`,
  );
  console.log(`rendered ${latencies.length} messages in ${elapsed.toFixed(2)} s`);
  console.log(
    `throughput: ${(latencies.length / elapsed).toFixed(0)} messages/second, ${(chars / elapsed / 1024).toFixed(0)} KiB/s`,
  );
  console.log(
    `latency (µs): mean ${mean.toFixed(0)}, p50 ${percentile(latencies, 50).toFixed(0)}, ` +
      `p99 ${percentile(latencies, 99).toFixed(0)}, max ${latencies[latencies.length - 1].toFixed(0)}`,
  );
}

main();
