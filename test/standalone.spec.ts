/**
 * The repository stands on its own: nothing in it reads outside the checkout at run or test time
 * (no ../shared, no sibling directories, no machine-specific paths). `.ci/run` also runs the
 * whole suite in a copy of the checkout inside an empty directory; this test catches the usual
 * ways of escaping early and explains them.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { loadOpenApiDocument, openApiDocumentPath } from './helpers/openapi';

const ROOT = path.resolve(__dirname, '..');
/** Where code, tests, scripts and docs live. */
const SCANNED = ['src', 'test', 'scripts', 'bench', '.ci', 'docs', 'deploy'];
const SCANNED_FILES = ['README.md', 'package.json', 'jest.config.js', 'ormconfig.ts', 'Dockerfile', 'nest-cli.json'];
/** The generator reads Zulip's reference material beside the checkout by design; nothing runs it. */
const ALLOWED = new Set(['test/standalone.spec.ts']);
const TEXT = /\.(ts|js|mjs|cjs|json|md|yml|yaml|sh)$|^run$|^Dockerfile$/;

function listFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'fixtures') continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...listFiles(full));
    else if (TEXT.test(entry.name)) out.push(full);
  }
  return out;
}

function sources(): Array<{ file: string; text: string }> {
  const files = [
    ...SCANNED.filter((d) => fs.existsSync(path.join(ROOT, d))).flatMap((d) => listFiles(path.join(ROOT, d))),
    ...SCANNED_FILES.map((f) => path.join(ROOT, f)).filter((f) => fs.existsSync(f)),
  ];
  return files
    .map((full) => ({ file: path.relative(ROOT, full).split(path.sep).join('/'), full }))
    .filter(({ file }) => !ALLOWED.has(file))
    .map(({ file, full }) => ({ file, text: fs.readFileSync(full, 'utf8') }));
}

/** Literal pieces of `path.join(__dirname, ...)` / `resolve(__dirname, ...)` calls. */
function dirnamePaths(text: string): string[][] {
  const found: string[][] = [];
  for (const match of text.matchAll(/\b(?:join|resolve)\(\s*__dirname\s*,([^)]*)\)/g)) {
    const parts: string[] = [];
    for (const arg of match[1].split(',')) {
      const literal = /^\s*(['"`])([^'"`$]*)\1\s*$/.exec(arg);
      if (!literal) break; // a computed piece: stop at what is known
      parts.push(literal[2]);
    }
    found.push(parts);
  }
  return found;
}

describe('the repository reads nothing outside its checkout', () => {
  const files = sources();

  it('scans the code, tests, scripts and docs', () => {
    expect(files.length).toBeGreaterThan(200);
    expect(files.some((f) => f.file === 'test/helpers/openapi.ts')).toBe(true);
  });

  it('no file names ../shared, shared/reference or a machine path', () => {
    const offenders: string[] = [];
    const patterns = [
      /\.\.\/shared\b/,
      /\bshared\/(reference|DECISIONS|ARCHITECTURE)\b/,
      /\/work\//,
      /'shared',\s*'reference'/,
    ];
    for (const { file, text } of files) {
      text.split('\n').forEach((line, i) => {
        if (patterns.some((p) => p.test(line))) offenders.push(`${file}:${i + 1}: ${line.trim()}`);
      });
    }
    expect(offenders).toEqual([]);
  });

  it('no path built from __dirname climbs above the repository root', () => {
    const offenders: string[] = [];
    for (const { file, text } of files) {
      for (const parts of dirnamePaths(text)) {
        // Compiled code runs one level deeper (dist/...), so the source location is the strict case.
        const target = path.resolve(ROOT, path.dirname(file), ...parts);
        if (target !== ROOT && !target.startsWith(ROOT + path.sep)) {
          offenders.push(`${file}: ${parts.join(', ')} → ${target}`);
        }
      }
    }
    expect(offenders).toEqual([]);
  });

  it("Zulip's OpenAPI shapes and Markdown cases come from the repository's fixtures", () => {
    if (!process.env.ZULIP_OPENAPI_PATH) {
      expect(openApiDocumentPath()).toBe(path.join(ROOT, 'test', 'fixtures', 'zulip', 'openapi.json'));
    }
    const doc = loadOpenApiDocument() as { paths: Record<string, unknown> };
    // Every operation of Zulip's document is kept, for endpoints other engineers add later.
    for (const template of ['/messages', '/users/me/presence', '/users/me/status', '/drafts', '/scheduled_messages']) {
      expect(doc.paths[template]).toBeDefined();
    }
    const cases = JSON.parse(
      fs.readFileSync(path.join(ROOT, 'test', 'fixtures', 'zulip', 'markdown-cases.json'), 'utf8'),
    ) as { regular_tests: unknown[] };
    expect(cases.regular_tests.length).toBeGreaterThan(50);
  });

  it('the fixtures keep shapes and drop prose', () => {
    const text = fs.readFileSync(path.join(ROOT, 'test', 'fixtures', 'zulip', 'openapi.json'), 'utf8');
    expect(text).not.toMatch(/"summary":/);
    expect(text).not.toMatch(/"x-curl-examples-parameters":/);
    // A `description` left is a property name or example data, never a long prose keyword value.
    expect(text).not.toMatch(/"description": "[^"]{200,}"/);
  });
});
