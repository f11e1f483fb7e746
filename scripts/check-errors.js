#!/usr/bin/env node
// The error catalog rules (docs/DEVELOPING.md "Errors"):
// 1. outside the catalog files (src/common/errors/zulip-error.ts, src/common/errors/*.errors.ts,
//    src/**/*.errors.ts) no `new ZulipError(...)`, and no call of a free-text builder
//    (`badRequest`, `unauthorized`, `httpError`, `badNarrow`) whose text contains a literal:
//    texts come from a catalog factory;
// 2. no text is written twice in the catalog files;
// 3. no catalog text is written again as a literal elsewhere in src/ (compare with the factory).
// Spec files are exempt. Reads the TypeScript syntax tree (no type checking).
const fs = require('node:fs');
const path = require('node:path');
const ts = require('typescript');

const root = path.join(__dirname, '..', 'src');
const files = [];
(function walk(dir) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) walk(p);
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts')) files.push(p);
  }
})(root);

const rel = (file) => path.relative(path.join(root, '..'), file);
const isCatalog = (file) =>
  file.endsWith('.errors.ts') || rel(file) === path.join('src', 'common', 'errors', 'zulip-error.ts');
const MESSAGE_TAKERS = new Set(['badRequest', 'unauthorized', 'httpError', 'badNarrow']);

/** Literals that are identifiers, codes, keys or header names rather than sentences. */
const isToken = (text) => !/[A-Za-z]/.test(text) || /^[\w.:/-]*$/.test(text);
/** A literal's text with every substitution written `${}`, or undefined for other nodes. */
function textOf(node) {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  if (ts.isTemplateExpression(node))
    return node.head.text + node.templateSpans.map((s) => '${}' + s.literal.text).join('');
  return undefined;
}
function containsLiteral(node) {
  const text = textOf(node);
  if (text !== undefined && !isToken(text)) return true;
  return ts.forEachChild(node, (child) => (containsLiteral(child) ? true : undefined)) ?? false;
}
function calleeName(expr) {
  if (ts.isIdentifier(expr)) return expr.text;
  if (ts.isPropertyAccessExpression(expr)) return expr.name.text;
  return undefined;
}

/** Where a catalog file writes a text: the message of a factory, a text constant or a returned text. */
function isTextPosition(node) {
  const parent = node.parent;
  if ((ts.isCallExpression(parent) || ts.isNewExpression(parent)) && parent.arguments?.[0] === node) {
    const name = calleeName(parent.expression);
    return name === 'ZulipError' || MESSAGE_TAKERS.has(name ?? '');
  }
  return (
    (ts.isVariableDeclaration(parent) && parent.initializer === node) ||
    ts.isReturnStatement(parent) ||
    (ts.isArrowFunction(parent) && parent.body === node)
  );
}

const problems = [];
const catalogTexts = new Map(); // text → first place
const elsewhere = []; // { text, where }

for (const file of files) {
  const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const catalog = isCatalog(file);
  const where = (node) => `${rel(file)}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
  (function visit(node) {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) return;
    if (!catalog) {
      if (ts.isNewExpression(node) && calleeName(node.expression) === 'ZulipError') {
        problems.push(
          `${where(node)}: new ZulipError(...) outside the error catalog; add a factory to a *.errors.ts file`,
        );
      }
      if (ts.isCallExpression(node) && MESSAGE_TAKERS.has(calleeName(node.expression) ?? '')) {
        const first = node.arguments[0];
        if (first && containsLiteral(first)) {
          problems.push(`${where(node)}: error text written outside the error catalog; use (or add) a catalog factory`);
        }
      }
    }
    const text = textOf(node);
    if (text !== undefined && !isToken(text)) {
      if (catalog) {
        if (!isTextPosition(node)) {
          // an argument of another factory (a parameter name, a detail): not a text of its own
        } else if (catalogTexts.has(text))
          problems.push(`${where(node)}: error text ${JSON.stringify(text)} also in ${catalogTexts.get(text)}`);
        else catalogTexts.set(text, where(node));
      } else {
        elsewhere.push({ text, where: where(node) });
      }
    }
    ts.forEachChild(node, visit);
  })(source);
}
for (const { text, where } of elsewhere) {
  if (catalogTexts.has(text)) {
    problems.push(`${where}: ${JSON.stringify(text)} repeats the catalog text of ${catalogTexts.get(text)}`);
  }
}

if (problems.length > 0) {
  console.error(problems.join('\n'));
  console.error(`${problems.length} error-catalog problem(s) (docs/DEVELOPING.md "Errors").`);
  process.exit(1);
}
console.log(`Error catalog: ${catalogTexts.size} texts, each written once.`);
