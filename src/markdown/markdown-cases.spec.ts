/**
 * Zulip's Markdown test cases (test/fixtures/zulip/markdown-cases.json, imported from
 * zerver/tests/fixtures/markdown_test_cases.json by scripts/import-zulip-reference.js).
 *
 * Each case must render exactly to `marked_expected_output` when present
 * (Zulip's web-client renderer, which, like us, does not syntax-highlight),
 * else to `expected_output` (Zulip's server).  Cases we knowingly render
 * differently are listed in KNOWN_DIFFERENCES with the reason; the test
 * checks that they still differ, so a fix that makes one pass fails here
 * until its entry is removed.
 */
import * as fs from 'fs';
import * as path from 'path';
import { renderMarkdown } from './render';
import { katexVersion } from './tex';
import { demoRealmContext } from './testing/demo-realm';

interface MarkdownCase {
  name: string;
  input: string;
  expected_output: string;
  marked_expected_output?: string;
  translate_emoticons?: boolean;
  backend_only_rendering?: boolean;
  needs_realm_context?: boolean;
}

interface KnownDifference {
  reason: string;
  /** Our output equals Zulip's server output instead (checked when set). */
  matchesServerOutput?: boolean;
  /** The difference only exists in some environments (e.g. a KaTeX version). */
  appliesWhen?: () => boolean;
}

const CASES_PATH = path.join(__dirname, '../../test/fixtures/zulip/markdown-cases.json');

const KNOWN_DIFFERENCES: Record<string, KnownDifference> = {
  edge_case_embedded_link_inside_Bold: {
    reason:
      "marked treats a paragraph that opens with a block-level tag as an HTML block and keeps the input's " +
      'trailing blank lines inside <p> ("...\\n\\n</p>"). We render what Zulip\'s server stores instead.',
    matchesServerOutput: true,
  },
  safe_html_unclosed_tag_and_quotes: {
    reason:
      'Same marked HTML-block quirk (trailing "\\n\\n" inside <p>, quotes as &quot;); we render what ' +
      "Zulip's server stores instead.",
    matchesServerOutput: true,
  },
  tex_complex: {
    reason:
      'KaTeX after 0.16.22 (0.19.1 is installed) rounds some margins to 4 decimals (0.0576em instead of ' +
      '0.05764em). KaTeX 0.16.22 and earlier, as pinned by Zulip, produce the expected output.',
    appliesWhen: () => !/^0\.16\.(\d|1\d|2[0-2])$/.test(katexVersion),
  },
};

function loadCases(): MarkdownCase[] {
  if (!fs.existsSync(CASES_PATH)) {
    throw new Error(
      `Markdown test cases not found at ${CASES_PATH}; regenerate them with scripts/import-zulip-reference.js`,
    );
  }
  return (JSON.parse(fs.readFileSync(CASES_PATH, 'utf8')) as { regular_tests: MarkdownCase[] }).regular_tests;
}

function render(testCase: MarkdownCase): string {
  return renderMarkdown(testCase.input, demoRealmContext({ translateEmoticons: testCase.translate_emoticons ?? false }))
    .html;
}

describe('Zulip Markdown test cases', () => {
  const cases = loadCases();

  it('has the cases file', () => {
    expect(cases.length).toBeGreaterThan(0);
  });

  it('lists only existing cases as known differences', () => {
    const names = new Set(cases.map((c) => c.name));
    for (const name of Object.keys(KNOWN_DIFFERENCES)) expect(names.has(name)).toBe(true);
  });

  for (const testCase of cases) {
    const expected = testCase.marked_expected_output ?? testCase.expected_output;
    const known = KNOWN_DIFFERENCES[testCase.name];
    if (known && (known.appliesWhen?.() ?? true)) {
      it(`${testCase.name} (known difference: ${known.reason})`, () => {
        const actual = render(testCase);
        expect(actual).not.toEqual(expected);
        if (known.matchesServerOutput) expect(actual).toEqual(testCase.expected_output);
      });
    } else {
      it(testCase.name, () => {
        expect(render(testCase)).toEqual(expected);
      });
    }
  }
});
