#!/usr/bin/env node
// Fails when SQL in one module names a table another module owns (docs/DEVELOPING.md, "Tables and
// their owners"). Every table has exactly one owning module; only that module's code mentions it in
// SQL (raw SQL strings and TypeORM calls given the table's entity class). Other modules call the
// owner's exported, intention-named service methods.
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..', 'src');

/** table → owning module (the top-level directory under src/). Keep in step with DEVELOPING.md. */
const OWNERS = {
  realm: 'realm',
  realm_user_default: 'realm',
  custom_profile_field: 'realm',
  user_profile: 'users',
  muted_user: 'users',
  user_group: 'users',
  user_group_membership: 'users',
  group_group_membership: 'users',
  custom_profile_field_value: 'users',
  navigation_view: 'users',
  email_change_status: 'users',
  recipient: 'channels',
  stream: 'channels',
  default_stream: 'channels',
  subscription: 'channels',
  channel_email_address: 'channels',
  user_topic: 'channels',
  channel_folder: 'channels',
  message: 'messaging',
  user_message: 'messaging',
  direct_message_group: 'messaging',
  reaction: 'messaging',
  submessage: 'messaging',
  attachment: 'uploads',
  attachment_message: 'uploads',
  push_device_token: 'push',
  realm_emoji: 'realm-emoji',
  realm_filter: 'linkifiers',
  realm_playground: 'playgrounds',
  invitation: 'invites',
  bot_storage_data: 'bot-storage',
  alert_word: 'alert-words',
  draft: 'drafts',
  saved_snippet: 'drafts',
  user_presence: 'presence',
  presence_sequence: 'presence',
  user_status: 'presence',
  scheduled_message: 'scheduled-messages',
  missed_message_email: 'missed-message-emails',
};
/** Entity class → table, read from the @Entity({ name }) decorators. */
const ENTITY_TABLES = {};

const files = [];
(function walk(dir) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (path.relative(root, p) === path.join('database', 'migrations')) continue; // the schema's history
      walk(p);
    } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts')) files.push(p);
  }
})(root);

const sources = new Map(files.map((f) => [f, fs.readFileSync(f, 'utf8')]));
const problems = [];
for (const [file, src] of sources) {
  for (const m of src.matchAll(
    /@Entity\(\{\s*name:\s*'([a-z_]+)'[^)]*\}\)(?:\s*@\w+\((?:[^()]|\([^()]*\))*\))*\s*export\s+class\s+(\w+)/g,
  )) {
    ENTITY_TABLES[m[2]] = m[1];
    if (!OWNERS[m[1]]) problems.push(`${path.relative(root, file)}: table ${m[1]} has no owner in ${__filename}`);
  }
}

const contextOf = (file) => path.relative(root, file).split(path.sep)[0];
const lineOf = (src, index) => src.slice(0, index).split('\n').length;
const tableNames = Object.keys(OWNERS).join('|');
// A table named where SQL expects one: after FROM, JOIN, INTO, UPDATE, TABLE, USING, or in a FROM list.
const sqlTableRe = new RegExp(
  String.raw`\b(?:FROM|JOIN|INTO|UPDATE|TABLE|USING)\s+(?:ONLY\s+)?"?(${tableNames})"?(?![\w.(])|,\s*"?(${tableNames})"?\s+(?:AS\s+)?[a-z]{1,3}\b(?=\s*(?:,|WHERE|JOIN|LEFT|CROSS|ON|\)|$))`,
  'gi',
);
const entityNames = () => Object.keys(ENTITY_TABLES).join('|');
// TypeORM calls given an entity class: getRepository(X), qb.from(X, 'x'), em.insert(X, …), …
const entityCallRe = () =>
  new RegExp(
    String.raw`\b(?:getRepository|from|into|update|insert|delete|find\w*|save|count\w*|exists\w*|increment|decrement|upsert|createQueryBuilder|remove|softDelete|leftJoin\w*|innerJoin\w*|sum|average|minimum|maximum|clear)\(\s*(${entityNames()})\b`,
    'g',
  );
// String and template literals (SQL lives in them); comments are skipped.
const literalRe =
  /\/\/[^\n]*|\/\*[\s\S]*?\*\/|`(?:\\[\s\S]|\$\{(?:[^{}]|\{[^{}]*\})*\}|[^`\\])*`|'(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*"/g;

const violations = [];
for (const [file, src] of sources) {
  const from = contextOf(file);
  if (from.endsWith('.ts')) continue;
  const report = (index, table, how) => {
    const owner = OWNERS[table.toLowerCase()];
    if (owner && owner !== from)
      violations.push({
        key: `${path.relative(root, file)} ${table.toLowerCase()}`,
        text: `${path.relative(root, file)}:${lineOf(src, index)}: ${how} ${table} (owned by ${owner})`,
      });
  };
  for (const lit of src.matchAll(literalRe)) {
    if (lit[0].startsWith('//') || lit[0].startsWith('/*')) continue;
    for (const m of lit[0].matchAll(sqlTableRe)) report(lit.index + m.index, m[1] ?? m[2], 'SQL names');
  }
  const code = src.replace(literalRe, (s) => (s.startsWith('//') || s.startsWith('/*') ? ' '.repeat(s.length) : s));
  for (const m of code.matchAll(entityCallRe())) report(m.index, ENTITY_TABLES[m[1]], `TypeORM call on ${m[1]} →`);
}

// Mentions that predate the check, per file and table: they may only shrink (issue 10 moves them to
// their owners module by module). Anything not listed fails; a listed count above today's fails too,
// so the list is kept exact (run with --update after moving SQL to its owner).
const baselinePath = path.join(__dirname, 'table-ownership-baseline.json');
const baseline = fs.existsSync(baselinePath) ? JSON.parse(fs.readFileSync(baselinePath, 'utf8')) : {};
const counts = {};
for (const v of violations) counts[v.key] = (counts[v.key] ?? 0) + 1;
if (process.argv.includes('--update')) {
  const sorted = Object.fromEntries(
    Object.keys(counts)
      .sort()
      .map((k) => [k, counts[k]]),
  );
  fs.writeFileSync(baselinePath, JSON.stringify(sorted, null, 2) + '\n');
  console.log(
    `Wrote ${Object.keys(sorted).length} entries (${violations.length} mentions) to ${path.relative(process.cwd(), baselinePath)}.`,
  );
  process.exit(0);
}
const fresh = violations.filter((v) => (counts[v.key] ?? 0) > (baseline[v.key] ?? 0));
const stale = Object.keys(baseline).filter((k) => (counts[k] ?? 0) < baseline[k]);
for (const p of problems) console.error(p);
for (const v of fresh) console.error(v.text);
for (const k of stale)
  console.error(
    `${k}: ${counts[k] ?? 0} mention(s), the baseline says ${baseline[k]}: run node scripts/check-table-ownership.js --update`,
  );
if (problems.length || fresh.length || stale.length) {
  if (fresh.length)
    console.error(
      `\nSQL names another module's table. Call the owner's exported service instead (docs/DEVELOPING.md, "Tables and their owners").`,
    );
  process.exit(1);
}
const remaining = Object.values(baseline).reduce((a, b) => a + b, 0);
console.log(
  remaining
    ? `No new SQL on another module's table (${Object.keys(OWNERS).length} tables; ${remaining} older mention(s) left in ${path.basename(baselinePath)}).`
    : `Every table is used in SQL by its owner only (${Object.keys(OWNERS).length} tables).`,
);
