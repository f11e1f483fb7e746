/**
 * Linkifier rendering cost, without Nest or a database.
 *
 *   npm run build && node dist/bench/linkifiers.bench.js
 *
 * Renders near-limit messages (10 000 characters) with linkifiers whose patterns would
 * backtrack catastrophically on a backtracking engine, and a message that matches 1 000 times,
 * and prints the worst render time of each. RE2 keeps every one linear in the text; the
 * bounded repetitions (`[\s\S]{1000}`) are the slowest shapes, tens of milliseconds.
 */
import { compileLinkifiers, renderMarkdown, topicLinks } from '../src/markdown';

const PATTERNS: Array<[string, string]> = [
  ['#(?P<id>[0-9]+)', 'https://trac.example.com/ticket/{id}'],
  ['(a+)+$', 'https://x.example/'],
  ['(a|aa)+b', 'https://x.example/'],
  ['(?P<x>(\\w+\\s?)*)!', 'https://x.example/{x}'],
  ['[\\s\\S]{1000}', 'https://x.example/'],
  ['(?P<x>.{500}.{500})x', 'https://x.example/{x}'],
];

const TEXTS: Record<string, string> = {
  'a×9999 + X': `${'a'.repeat(9999)}X`,
  'words ×900 + ?': `${'abcdefghij '.repeat(900)}?`,
  '1 000 tickets': Array.from({ length: 1000 }, (_, i) => `#${i + 10}`).join(' '),
};

function worst(run: () => void, times = 5): number {
  let max = 0;
  for (let i = 0; i < times; i++) {
    const start = process.hrtime.bigint();
    run();
    max = Math.max(max, Number(process.hrtime.bigint() - start) / 1e6);
  }
  return max;
}

const all = compileLinkifiers(PATTERNS.map(([pattern, url_template], i) => ({ id: i + 1, pattern, url_template })));
for (const [i, [pattern]] of PATTERNS.entries()) {
  const one = [all[i]];
  for (const [name, text] of Object.entries(TEXTS)) {
    const ms = worst(() => renderMarkdown(text, { linkifiers: one }));
    console.log(`${pattern.padEnd(24)} ${name.padEnd(16)} ${ms.toFixed(1).padStart(7)} ms`);
  }
}
for (const [name, text] of Object.entries(TEXTS)) {
  const ms = worst(() => renderMarkdown(text, { linkifiers: all }));
  const topic = worst(() => topicLinks(all, text.slice(0, 60)));
  console.log(
    `all ${PATTERNS.length} linkifiers      ${name.padEnd(16)} ${ms.toFixed(1).padStart(7)} ms (topic ${topic.toFixed(2)} ms)`,
  );
}
