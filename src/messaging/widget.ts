import { ParamErrors } from '../common/errors/param.errors';
import { SubmessageErrors } from './message.errors';

/**
 * Widgets (Zulip's zerver/lib/widget.py and the poll/todo parts of zerver/lib/validator.py).
 * Pure functions: what a message's content makes of it when sent, and the checks of the
 * submessages readers add to a poll or a to-do list.
 */

export type WidgetType = 'poll' | 'todo';

export interface PollExtraData {
  question: string;
  options: string[];
}

export interface TodoExtraData {
  task_list_title: string;
  tasks: Array<{ task: string; desc: string }>;
}

export type WidgetData =
  { widgetType: 'poll'; extraData: PollExtraData } | { widgetType: 'todo'; extraData: TodoExtraData };

/** The characters Python's str.isspace() (and so `\s`, split() and strip()) treats as whitespace. */
const PY_SPACE = '\\t\\n\\v\\f\\r \\x1c-\\x1f\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
const FIRST_SPACE = new RegExp(`[${PY_SPACE}]`);
const STRIP = new RegExp(`^[${PY_SPACE}]+|[${PY_SPACE}]+$`, 'g');
const LIST_MARKER = new RegExp(`^[-*]?[${PY_SPACE}]*`);
/** Python's str.splitlines() boundaries (besides \r\n, which counts as one). */
const LINE_BREAKS = new Set(['\n', '\r', '\v', '\f', '\u001c', '\u001d', '\u001e', '\u0085', '\u2028', '\u2029']);

function pyStrip(s: string): string {
  return s.replace(STRIP, '');
}

function pySplitLines(s: string): string[] {
  const lines: string[] = [];
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    if (!LINE_BREAKS.has(s[i])) continue;
    lines.push(s.slice(start, i));
    if (s[i] === '\r' && s[i + 1] === '\n') i++;
    start = i + 1;
  }
  // A final line break ends the last line rather than starting an empty one.
  if (start < s.length) lines.push(s.slice(start));
  return lines;
}

/** The first line (when not empty) and the other non-empty lines, list markers removed. */
function headAndItems(rest: string): { head: string; items: string[] } {
  const lines = pySplitLines(rest);
  let head = '';
  if (lines.length > 0 && lines[0] !== '') head = pyStrip(lines.shift()!);
  const items = lines.map((line) => pyStrip(line).replace(LIST_MARKER, '')).filter((item) => item.length > 0);
  return { head, items };
}

/**
 * Zulip's get_widget_data: content whose first word is `/poll` or `/todo` makes a widget
 * message. `/poll Question\nOption…` gives the question and options; `/todo Title\ntask: desc…`
 * the title and tasks. Anything else (`/me`, `/bogus`, "use /poll") is an ordinary message.
 */
export function widgetFromContent(content: string): WidgetData | null {
  if (!content.startsWith('/poll') && !content.startsWith('/todo')) return null;
  const space = FIRST_SPACE.exec(content);
  const command = space === null ? content : content.slice(0, space.index);
  const rest = content.slice(command.length);
  if (command === '/poll') {
    const { head, items } = headAndItems(rest);
    return { widgetType: 'poll', extraData: { question: head, options: items } };
  }
  if (command === '/todo') {
    const { head, items } = headAndItems(rest);
    const tasks = items.map((item) => {
      const at = item.indexOf(': ');
      return at === -1
        ? { task: pyStrip(item), desc: '' }
        : { task: pyStrip(item.slice(0, at)), desc: pyStrip(item.slice(at + 2)) };
    });
    return { widgetType: 'todo', extraData: { task_list_title: head, tasks } };
  }
  return null;
}

/**
 * JSON text as Python's json.dumps writes it (`", "` and `": "` separators, non-ASCII
 * escaped), so a widget's stored content reads exactly as Zulip's.
 */
export function pythonJsonDumps(value: unknown): string {
  if (typeof value === 'string') {
    return `"${value.replace(/[\\"]|[^ -~]/g, (c) => {
      switch (c) {
        case '\\':
          return '\\\\';
        case '"':
          return '\\"';
        case '\n':
          return '\\n';
        case '\r':
          return '\\r';
        case '\t':
          return '\\t';
        case '\b':
          return '\\b';
        case '\f':
          return '\\f';
        default:
          return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
      }
    })}"`;
  }
  if (Array.isArray(value)) return `[${value.map(pythonJsonDumps).join(', ')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).map(([k, v]) => `${pythonJsonDumps(k)}: ${pythonJsonDumps(v)}`);
    return `{${entries.join(', ')}}`;
  }
  return JSON.stringify(value);
}

/** The content of a widget's first submessage (msg_type `widget`). */
export function widgetSubmessageContent(widget: WidgetData): string {
  return pythonJsonDumps({ widget_type: widget.widgetType, extra_data: widget.extraData });
}

/** Zulip's get_widget_type: the widget_type of a stored widget submessage, or null. */
export function widgetTypeOf(content: string | null): string | null {
  if (content === null) return null;
  let data: unknown;
  try {
    data = JSON.parse(content);
  } catch {
    return null;
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return null;
  const type = (data as Record<string, unknown>).widget_type;
  return typeof type === 'string' ? type : null;
}

// ---- Zulip's check_dict / check_dict_only over parsed JSON, with its texts ----

type Checker = (name: string, value: unknown) => void;

const checkString: Checker = (name, value) => {
  if (typeof value !== 'string') throw ParamErrors.notAString(name);
};

/** Python's check_int: a bool is an int there (True == 1), and JSON numbers arrive as numbers. */
function intValue(name: string, value: unknown): number {
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value !== 'number' || !Number.isInteger(value)) throw ParamErrors.notAnInteger(name);
  return value;
}

const checkIntIn =
  (allowed: number[]): Checker =>
  (name, value) => {
    if (!allowed.includes(intValue(name, value))) throw ParamErrors.invalid(name);
  };

const checkIntRange =
  (low: number, high: number): Checker =>
  (name, value) => {
    const n = intValue(name, value);
    if (n < low) throw ParamErrors.tooSmall(name);
    if (n > high) throw ParamErrors.tooLarge(name);
  };

const checkBool: Checker = (name, value) => {
  if (typeof value !== 'boolean') throw ParamErrors.notABoolean(name);
};

function isDict(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function checkDict(name: string, value: unknown, required: Array<[string, Checker]>, only: boolean): void {
  if (!isDict(value)) throw ParamErrors.notADict(name);
  for (const [key, check] of required) {
    if (!Object.hasOwn(value, key)) throw ParamErrors.keyMissing(key, name);
    check(`${name}["${key}"]`, value[key]);
  }
  if (only) {
    const known = new Set(required.map(([key]) => key));
    const extra = Object.keys(value).filter((key) => !known.has(key));
    if (extra.length > 0) throw ParamErrors.unexpectedArguments(extra);
  }
}

/** This should match MAX_IDX in the clients' widgets (Zulip's value). */
export const MAX_WIDGET_IDX = 1000;

/** Zulip's validate_poll_data: throws the error Zulip answers, or returns. */
export function validatePollData(data: unknown, isWidgetAuthor: boolean): void {
  const name = 'poll data';
  checkDict(name, data, [['type', checkString]], false);
  const type = (data as Record<string, unknown>).type as string;
  switch (type) {
    case 'vote':
      return checkDict(
        name,
        data,
        [
          ['type', checkString],
          ['key', checkString],
          ['vote', checkIntIn([1, -1])],
        ],
        true,
      );
    case 'question':
      if (!isWidgetAuthor) throw SubmessageErrors.pollQuestionNotAuthor();
      return checkDict(
        name,
        data,
        [
          ['type', checkString],
          ['question', checkString],
        ],
        true,
      );
    case 'new_option':
      return checkDict(
        name,
        data,
        [
          ['type', checkString],
          ['option', checkString],
          ['idx', checkIntRange(0, MAX_WIDGET_IDX)],
        ],
        true,
      );
    default:
      throw SubmessageErrors.unknownDataType('poll', type);
  }
}

/** Zulip's validate_todo_data. */
export function validateTodoData(data: unknown, isWidgetAuthor: boolean): void {
  const name = 'todo data';
  checkDict(name, data, [['type', checkString]], false);
  const type = (data as Record<string, unknown>).type as string;
  switch (type) {
    case 'new_task':
      return checkDict(
        name,
        data,
        [
          ['type', checkString],
          ['key', checkIntRange(0, MAX_WIDGET_IDX)],
          ['task', checkString],
          ['desc', checkString],
          ['completed', checkBool],
        ],
        true,
      );
    case 'strike':
      return checkDict(
        name,
        data,
        [
          ['type', checkString],
          ['key', checkString],
        ],
        true,
      );
    case 'new_task_list_title':
      if (!isWidgetAuthor) throw SubmessageErrors.todoTitleNotAuthor();
      return checkDict(
        name,
        data,
        [
          ['type', checkString],
          ['title', checkString],
        ],
        true,
      );
    default:
      throw SubmessageErrors.unknownDataType('todo', type);
  }
}
