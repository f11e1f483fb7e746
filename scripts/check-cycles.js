#!/usr/bin/env node
// Fails when the modules under src/ import each other in a cycle (docs/DECISIONS.md: the module
// dependencies form a DAG). Reads import statements; resolves relative paths only.
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..', 'src');
const files = [];
(function walk(dir) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) walk(p);
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts')) files.push(p);
  }
})(root);

/** Top-level context of a file: realm, users, channels, … (common and database are shared glue). */
const contextOf = (file) => path.relative(root, file).split(path.sep)[0];
const importRe = /^\s*(?:import|export)\s[^'"]*?from\s+['"](\.[^'"]+)['"]/gm;
// Files at the top of src/ (main.ts, app.module.ts, cli.ts, entities.ts, migrate.ts, …) are the
// composition roots: they list every module's pieces and sit above the DAG. No module may import
// one of them (that would be an import upward, past every module).
const upward = [];
const edges = new Map();
for (const file of files) {
  const from = contextOf(file);
  if (from.endsWith('.ts')) continue; // a composition root imports anything below it
  const src = fs.readFileSync(file, 'utf8');
  for (const m of src.matchAll(importRe)) {
    if (/^import\s+type\s/.test(m[0].trim())) continue; // type-only imports vanish at run time
    const target = path.resolve(path.dirname(file), m[1]);
    // `../markdown` is a module's index (markdown/index.ts), not a top-level markdown.ts.
    const resolved = fs.existsSync(target + '.ts') ? target + '.ts' : path.join(target, 'index.ts');
    const to = contextOf(resolved);
    if (to.endsWith('.ts')) {
      upward.push(`${path.relative(root, file)} imports the composition root ${to}`);
      continue;
    }
    if (to === from) continue;
    if (!edges.has(from)) edges.set(from, new Set());
    edges.get(from).add(to);
  }
}

const state = new Map();
const stack = [];
let cycle;
function visit(node) {
  state.set(node, 'active');
  stack.push(node);
  for (const next of edges.get(node) ?? []) {
    if (state.get(next) === 'active') {
      cycle = [...stack.slice(stack.indexOf(next)), next];
      return true;
    }
    if (!state.has(next) && visit(next)) return true;
  }
  stack.pop();
  state.set(node, 'done');
  return false;
}
for (const node of edges.keys()) if (!state.has(node) && visit(node)) break;
if (upward.length > 0) {
  console.error(`Imports from a module up to a composition root:\n  ${upward.join('\n  ')}`);
  process.exit(1);
}
if (cycle) {
  console.error(`Module dependency cycle: ${cycle.join(' -> ')}`);
  process.exit(1);
}
console.log(`No module cycles (${[...edges.keys()].length} contexts).`);
