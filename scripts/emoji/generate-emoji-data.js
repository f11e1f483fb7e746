#!/usr/bin/env node
/*
 * Generates src/markdown/emoji/emoji-data.json, the Unicode emoji table the
 * server uses for `:name:` syntax, raw Unicode emoji in messages and
 * reactions.
 *
 * It reproduces how Zulip names its emoji (tools/setup/emoji/generate_emoji_names
 * and build_emoji in zulip/zulip), but is our own code:
 *
 *   1. The set of emoji comes from iamcal's emoji-datasource-google (Zulip
 *      pins the 15.0 data set); only emoji with a Google image are kept.
 *      An emoji's code is its codepoints in lowercase hex joined by "-",
 *      with every U+FE0F (emoji presentation selector) removed.
 *   2. Zulip's hand-picked names (scripts/emoji/zulip-custom-emoji-names.json,
 *      a transcription of CUSTOM_EMOJI_NAME_MAPS) win where they exist.
 *      Every other emoji is named from Unicode CLDR English annotations:
 *      the text-to-speech label becomes the canonical name and the keyword
 *      list becomes aliases, after `cleanupName`.
 *   3. Most clock faces and the bare skin-tone modifiers get no name.
 *   4. An alias equal to some canonical name is dropped; an alias claimed by
 *      more than one emoji is kept only by emoji that picked it by hand.
 *   5. A name with accented letters also gets an ASCII-only alias.
 *
 * Inputs are npm packages unpacked into a scratch directory, not project
 * dependencies:
 *
 *   mkdir -p /tmp/emoji && cd /tmp/emoji
 *   npm pack emoji-datasource-google@15.0.1 cldr-annotations-full@45.0.0 \
 *            cldr-annotations-derived-full@45.0.0
 *   for f in *.tgz; do mkdir -p "${f%.tgz}" && tar xzf "$f" -C "${f%.tgz}"; done
 *   node scripts/emoji/generate-emoji-data.js /tmp/emoji
 *
 * The output is committed; the server never runs this script.
 */
'use strict';

const fs = require('fs');
const path = require('path');

const REPO_ROOT = path.resolve(__dirname, '..', '..');
const OUTPUT = path.join(REPO_ROOT, 'src', 'markdown', 'emoji', 'emoji-data.json');
const CUSTOM_NAMES = path.join(__dirname, 'zulip-custom-emoji-names.json');

const DATASOURCE_VERSION = '15.0.1';
const CLDR_VERSION = '45.0.0';

// Zulip names only one clock face (1f557, "time"); the rest are left out.
const SKIPPED_CLOCKS = new Set([
  '1f550',
  '1f551',
  '1f552',
  '1f553',
  '1f554',
  '1f555',
  '1f556',
  '1f558',
  '1f559',
  '1f55a',
  '1f55b',
  '1f55c',
  '1f55d',
  '1f55e',
  '1f55f',
  '1f560',
  '1f561',
  '1f562',
  '1f563',
  '1f564',
  '1f565',
  '1f566',
  '1f567',
]);
// Skin-tone modifiers are not emoji one can pick on their own.
const SKIN_TONES = new Set(['1f3fb', '1f3fc', '1f3fd', '1f3fe', '1f3ff']);

// Names CLDR spells with non-Latin scripts; they keep ASCII aliases from
// CLDR, so no transliteration is attempted.
const NO_ASCII_FORM = new Set(['ココ', 'サ', '指', '空']);

// Emoticons the `translate_emoticons` setting turns into emoji, and the emoji
// name each becomes (Zulip's EMOTICON_CONVERSIONS for this naming set).
const EMOTICON_CONVERSIONS = {
  ':)': ':smile:',
  '(:': ':smile:',
  ':(': ':frown:',
  '<3': ':heart:',
  ':|': ':neutral:',
  ':/': ':confused:',
  ';)': ':wink:',
  ':D': ':grinning:',
  ':o': ':open_mouth:',
  ':O': ':open_mouth:',
  ':p': ':stuck_out_tongue:',
  ':P': ':stuck_out_tongue:',
};

function findFile(root, suffix) {
  const stack = [root];
  while (stack.length > 0) {
    const dir = stack.pop();
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) stack.push(full);
      else if (full.endsWith(suffix)) return full;
    }
  }
  throw new Error(`No file ending in ${suffix} under ${root}`);
}

function readJson(file) {
  return JSON.parse(fs.readFileSync(file, 'utf8'));
}

/** Lowercase hex codepoints joined by "-", e.g. "1f937-200d-2640". */
function toCode(chars) {
  return Array.from(chars, (c) => c.codePointAt(0).toString(16).padStart(4, '0')).join('-');
}

function fromUnified(unified) {
  return unified
    .split('-')
    .map((h) => String.fromCodePoint(parseInt(h, 16)))
    .join('');
}

function unqualify(chars) {
  return chars.replace(/\uFE0F/g, '');
}

/** Turns a CLDR label such as "flag: Côte d’Ivoire" into a name. */
function cleanupName(name) {
  const replacements = [
    [' ', '_'],
    ['-', '_'],
    ['\u2013', '_'],
    ['\u201c', ''],
    ['\u201d', ''],
    [':', ''],
    ['.', ''],
    [',', ''],
    ['(', ''],
    [')', ''],
    ['&', 'and'],
    ['\u2018', ''],
    ['\u2019', ''],
    ["'", ''],
  ];
  let out = name;
  for (const [from, to] of replacements) out = out.split(from).join(to);
  return out.replace(/_{2,}/g, '_').toLowerCase();
}

function asciiForm(name) {
  // Strip accents: decompose, then drop combining marks.
  const out = name.normalize('NFKD').replace(/\p{M}/gu, '');
  if (!/^[\x00-\x7f]*$/.test(out)) {
    throw new Error(`Cannot make an ASCII alias for ${name}`);
  }
  return out;
}

function main() {
  const inputDir = process.argv[2];
  if (!inputDir) {
    console.error('usage: generate-emoji-data.js <dir with unpacked emoji-datasource-google and CLDR packages>');
    process.exit(2);
  }
  const emojiData = readJson(findFile(inputDir, path.sep + 'emoji.json'));
  const cldr = readJson(findFile(inputDir, path.sep + path.join('annotations', 'en', 'annotations.json'))).annotations
    .annotations;
  const cldrDerived = readJson(findFile(inputDir, path.sep + path.join('annotationsDerived', 'en', 'annotations.json')))
    .annotationsDerived.annotations;
  const annotations = { ...cldr, ...cldrDerived };
  const custom = readJson(CUSTOM_NAMES);

  /** code -> { canonical, aliases, custom } in emoji-datasource order. */
  const entries = new Map();
  const canonicalNames = new Set();
  const skipped = [];

  // Step 1: a first name for every supported emoji.
  for (const item of emojiData) {
    if (!item.has_img_google) continue;
    const chars = unqualify(fromUnified(item.unified));
    const code = toCode(chars);
    if (SKIPPED_CLOCKS.has(code) || SKIN_TONES.has(code)) continue;

    let canonical;
    let aliases;
    const isCustom = Object.prototype.hasOwnProperty.call(custom, code);
    if (isCustom) {
      [canonical, ...aliases] = custom[code];
      const key = cleanupName(canonical);
      if (canonicalNames.has(key)) throw new Error(`Duplicate canonical name ${canonical}`);
      canonicalNames.add(key);
    } else {
      const annotation = annotations[chars];
      if (!annotation || !annotation.tts) {
        skipped.push(code);
        continue;
      }
      canonical = cleanupName(annotation.tts[0].trim());
      if (canonicalNames.has(canonical)) {
        throw new Error(`CLDR name ${canonical} (${code}) is already taken; add a custom name`);
      }
      canonicalNames.add(canonical);
      aliases = (annotation.default || []).map((a) => cleanupName(a.trim()));
    }
    entries.set(code, { canonical, aliases: [...new Set(aliases)], custom: isCustom });
  }

  // Step 2: aliases may not shadow a canonical name.
  const aliasOwners = new Map();
  for (const [code, entry] of entries) {
    entry.aliases = entry.aliases.filter((alias) => !canonicalNames.has(alias) && alias !== entry.canonical);
    for (const alias of entry.aliases) {
      if (!aliasOwners.has(alias)) aliasOwners.set(alias, []);
      aliasOwners.get(alias).push(code);
    }
  }

  // Step 3: an alias shared by several emoji stays only where it was picked by hand.
  for (const [alias, codes] of aliasOwners) {
    if (codes.length < 2) continue;
    for (const code of codes) {
      const entry = entries.get(code);
      if (!entry.custom) entry.aliases = entry.aliases.filter((a) => a !== alias);
    }
  }

  // Step 4: ASCII spellings for names with accents.
  for (const entry of entries.values()) {
    for (const name of [entry.canonical, ...entry.aliases]) {
      if (/^[\x00-\x7f]*$/.test(name) || NO_ASCII_FORM.has(name)) continue;
      const ascii = asciiForm(name);
      for (const code of aliasOwners.get(ascii) || []) {
        const other = entries.get(code);
        other.aliases = other.aliases.filter((a) => a !== ascii);
      }
      if (!entry.aliases.includes(ascii) && ascii !== entry.canonical) entry.aliases.push(ascii);
    }
  }

  // Final safety net: every name points at exactly one emoji.
  const seen = new Map();
  for (const [code, entry] of entries) {
    for (const name of [entry.canonical, ...entry.aliases]) {
      if (seen.has(name)) throw new Error(`Name ${name} used by ${seen.get(name)} and ${code}`);
      seen.set(name, code);
    }
  }
  for (const [emoticon, syntax] of Object.entries(EMOTICON_CONVERSIONS)) {
    if (!seen.has(syntax.slice(1, -1))) throw new Error(`Emoticon ${emoticon} maps to unknown ${syntax}`);
  }

  const output = {
    _comment:
      'Generated by scripts/emoji/generate-emoji-data.js; do not edit by hand. ' +
      'Each row is [code, canonical name, aliases].',
    source: {
      emojiDatasourceGoogle: DATASOURCE_VERSION,
      cldrAnnotations: CLDR_VERSION,
      zulipCustomNames: 'tools/setup/emoji/custom_emoji_names.py',
    },
    emoticonConversions: EMOTICON_CONVERSIONS,
    emoji: [...entries].map(([code, e]) => [code, e.canonical, e.aliases]),
  };
  const rows = output.emoji.map((row) => '    ' + JSON.stringify(row));
  const text =
    '{\n' +
    `  "_comment": ${JSON.stringify(output._comment)},\n` +
    `  "source": ${JSON.stringify(output.source)},\n` +
    `  "emoticonConversions": ${JSON.stringify(output.emoticonConversions)},\n` +
    `  "emoji": [\n${rows.join(',\n')}\n  ]\n}\n`;
  fs.writeFileSync(OUTPUT, text);
  console.log(`Wrote ${output.emoji.length} emoji (${seen.size} names) to ${path.relative(REPO_ROOT, OUTPUT)}`);
  if (skipped.length > 0) console.log(`No CLDR name, skipped: ${skipped.join(' ')}`);
}

main();
