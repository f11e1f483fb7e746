/**
 * RFC 6570 URI templates, as Zulip's linkifiers and code playgrounds use them (Zulip validates
 * and expands them with the `uri_template` Python package). Any literal text is accepted (Zulip's
 * validator accepts `%%`, `$` and brackets there) and percent-encoded where the RFC requires it
 * on expansion (`%%%ba` → `%25%25%ba`); expressions must be well formed:
 * an optional operator (`+ # . / ; ? &`), then comma-separated variable names (letters, digits,
 * `_`, percent-encoded octets, dots between them), each optionally with a prefix length
 * (`:1`–`:9999`) or an explode marker (`*`).
 */

interface VarSpec {
  readonly name: string;
  readonly maxLength: number; // 0: no prefix modifier
}

interface Expression {
  readonly operator: string;
  readonly vars: readonly VarSpec[];
}

export type TemplatePart = string | Expression;

const VARNAME_RE = /^(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})+(?:\.(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})+)*$/;
const OPERATORS = new Set(['+', '#', '.', '/', ';', '?', '&']);

function parseExpression(body: string): Expression | null {
  let operator = '';
  let rest = body;
  if (rest.length > 0 && OPERATORS.has(rest[0])) {
    operator = rest[0];
    rest = rest.slice(1);
  }
  const vars: VarSpec[] = [];
  for (const spec of rest.split(',')) {
    let name = spec;
    let maxLength = 0;
    const colon = spec.indexOf(':');
    if (colon >= 0) {
      name = spec.slice(0, colon);
      const digits = spec.slice(colon + 1);
      if (!/^[1-9][0-9]{0,3}$/.test(digits)) return null;
      maxLength = Number(digits);
    } else if (spec.endsWith('*')) {
      name = spec.slice(0, -1);
    }
    if (!VARNAME_RE.test(name)) return null;
    vars.push({ name, maxLength });
  }
  return { operator, vars };
}

/** The template's parts, or null when it is not a valid URI template. */
export function parseUriTemplate(template: string): TemplatePart[] | null {
  const parts: TemplatePart[] = [];
  let pos = 0;
  while (pos < template.length) {
    const open = template.indexOf('{', pos);
    if (open < 0) {
      parts.push(template.slice(pos));
      break;
    }
    if (open > pos) parts.push(template.slice(pos, open));
    const close = template.indexOf('}', open + 1);
    if (close < 0) return null;
    const expression = parseExpression(template.slice(open + 1, close));
    if (!expression) return null;
    parts.push(expression);
    pos = close + 1;
  }
  return parts;
}

export function isValidUriTemplate(template: string): boolean {
  return parseUriTemplate(template) !== null;
}

/** The names of the template's variables (valid templates only). */
export function uriTemplateVariables(parts: readonly TemplatePart[]): Set<string> {
  const names = new Set<string>();
  for (const part of parts) if (typeof part !== 'string') for (const v of part.vars) names.add(v.name);
  return names;
}

const UNRESERVED = /[A-Za-z0-9\-._~]/;
const RESERVED = /[:/?#[\]@!$&'()*+,;=]/;

function encode(value: string, allowReserved: boolean): string {
  let out = '';
  const chars = Array.from(value);
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i];
    if (UNRESERVED.test(ch)) out += ch;
    else if (allowReserved && RESERVED.test(ch)) out += ch;
    else if (allowReserved && ch === '%' && /^[0-9A-Fa-f]{2}$/.test((chars[i + 1] ?? '') + (chars[i + 2] ?? ''))) {
      out += ch;
    } else {
      for (const byte of Buffer.from(ch, 'utf8')) out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
    }
  }
  return out;
}

const OPERATOR_RULES: Record<
  string,
  { first: string; sep: string; named: boolean; ifEmpty: string; reserved: boolean }
> = {
  '': { first: '', sep: ',', named: false, ifEmpty: '', reserved: false },
  '+': { first: '', sep: ',', named: false, ifEmpty: '', reserved: true },
  '#': { first: '#', sep: ',', named: false, ifEmpty: '', reserved: true },
  '.': { first: '.', sep: '.', named: false, ifEmpty: '', reserved: false },
  '/': { first: '/', sep: '/', named: false, ifEmpty: '', reserved: false },
  ';': { first: ';', sep: ';', named: true, ifEmpty: '', reserved: false },
  '?': { first: '?', sep: '&', named: true, ifEmpty: '=', reserved: false },
  '&': { first: '&', sep: '&', named: true, ifEmpty: '=', reserved: false },
};

/** Expands a parsed template with string values; undefined variables are left out (RFC 6570 §3.2.1). */
export function expandUriTemplate(
  parts: readonly TemplatePart[],
  values: Readonly<Record<string, string | undefined>>,
): string {
  let out = '';
  for (const part of parts) {
    if (typeof part === 'string') {
      // Literals keep reserved characters and percent-encoded octets; anything else is encoded.
      out += encode(part, true);
      continue;
    }
    const rule = OPERATOR_RULES[part.operator];
    const pieces: string[] = [];
    for (const v of part.vars) {
      const raw = Object.prototype.hasOwnProperty.call(values, v.name) ? values[v.name] : undefined;
      if (raw === undefined || raw === null) continue;
      const value = v.maxLength > 0 ? Array.from(raw).slice(0, v.maxLength).join('') : raw;
      const encoded = encode(value, rule.reserved);
      if (!rule.named) pieces.push(encoded);
      else if (value === '') pieces.push(`${v.name}${rule.ifEmpty}`);
      else pieces.push(`${v.name}=${encoded}`);
    }
    if (pieces.length > 0) out += rule.first + pieces.join(rule.sep);
  }
  return out;
}
