import { ZulipError } from '../common/errors/zulip-error';
import {
  pythonJsonDumps,
  validatePollData,
  validateTodoData,
  widgetFromContent,
  widgetSubmessageContent,
  widgetTypeOf,
} from './widget';

/** The text of the error `fn` throws (Zulip's ValidationError message), or null. */
function errorOf(fn: () => void): string | null {
  try {
    fn();
    return null;
  } catch (err) {
    if (err instanceof ZulipError) return err.message;
    throw err;
  }
}

describe('widgetFromContent (Zulip test_widgets)', () => {
  it.each([
    '',
    '     ',
    'this is an ordinary message',
    '/bogus_command',
    '/me shrugs',
    'use /poll',
    '/pollx',
    ' /poll a',
  ])('is not a widget: %j', (content) => {
    expect(widgetFromContent(content)).toBeNull();
  });

  it('parses todo lists: title, tasks with descriptions, list markers, blank lines', () => {
    expect(widgetFromContent('/todo')).toEqual({ widgetType: 'todo', extraData: { task_list_title: '', tasks: [] } });
    expect(widgetFromContent('/todo Title')).toEqual({
      widgetType: 'todo',
      extraData: { task_list_title: 'Title', tasks: [] },
    });
    expect(widgetFromContent('/todo\nTask')).toEqual({
      widgetType: 'todo',
      extraData: { task_list_title: '', tasks: [{ task: 'Task', desc: '' }] },
    });
    expect(widgetFromContent('/todo   School Work')?.extraData).toEqual({ task_list_title: 'School Work', tasks: [] });
    expect(
      widgetFromContent(
        '/todo Example Task List Title\n\n    task without description\ntask: with description    \n\n - task as list : also with description',
      )?.extraData,
    ).toEqual({
      task_list_title: 'Example Task List Title',
      tasks: [
        { task: 'task without description', desc: '' },
        { task: 'task', desc: 'with description' },
        { task: 'task as list', desc: 'also with description' },
      ],
    });
  });

  it('parses polls: question and options', () => {
    expect(widgetFromContent('/poll What is your favorite color?\n\nRed\nGreen  \n\n   Blue\n - Yellow')).toEqual({
      widgetType: 'poll',
      extraData: { question: 'What is your favorite color?', options: ['Red', 'Green', 'Blue', 'Yellow'] },
    });
    expect(widgetFromContent('/poll')?.extraData).toEqual({ question: '', options: [] });
    expect(widgetFromContent('/poll\n* one\r\n*two\n-')?.extraData).toEqual({ question: '', options: ['one', 'two'] });
    expect(widgetFromContent('/poll\tQ')?.extraData).toEqual({ question: 'Q', options: [] });
  });

  it("stores the widget as Python's json.dumps writes it", () => {
    const widget = widgetFromContent('/poll Café "au lait"?\nyes\\no')!;
    expect(widgetSubmessageContent(widget)).toBe(
      '{"widget_type": "poll", "extra_data": {"question": "Caf\\u00e9 \\"au lait\\"?", "options": ["yes\\\\no"]}}',
    );
    expect(JSON.parse(widgetSubmessageContent(widget))).toEqual({
      widget_type: 'poll',
      extra_data: { question: 'Café "au lait"?', options: ['yes\\no'] },
    });
    expect(pythonJsonDumps({ a: [1, true, null], b: '😀\u007f\t' })).toBe(
      '{"a": [1, true, null], "b": "\\ud83d\\ude00\\u007f\\t"}',
    );
  });

  it("reads a stored widget's type (Zulip's get_widget_type)", () => {
    expect(widgetTypeOf('{"widget_type": "poll", "extra_data": {}}')).toBe('poll');
    expect(widgetTypeOf('{"widget_type": "todo"}')).toBe('todo');
    expect(widgetTypeOf('bogus non-json')).toBeNull();
    expect(widgetTypeOf('{"bogus": 1}')).toBeNull();
    expect(widgetTypeOf('[1]')).toBeNull();
    expect(widgetTypeOf(null)).toBeNull();
  });
});

describe('validatePollData (Zulip test_poll_type_validation)', () => {
  const poll = (data: unknown, author = true) => errorOf(() => validatePollData(data, author));
  it.each([
    ['', 'poll data is not a dict'],
    [[], 'poll data is not a dict'],
    [{}, 'type key is missing from poll data'],
    [{ type: 7 }, 'poll data["type"] is not a string'],
    [{ type: 'bogus' }, 'Unknown type for poll data: bogus'],
    [{ type: 'vote' }, 'key key is missing from poll data'],
    [{ type: 'vote', key: '1,1,', vote: 99 }, 'Invalid poll data["vote"]'],
    [{ type: 'vote', key: 1, vote: 1 }, 'poll data["key"] is not a string'],
    [{ type: 'vote', key: '1,1', vote: 'yes' }, 'poll data["vote"] is not an integer'],
    [{ type: 'vote', key: '1,1', vote: 1, extra: 1, more: 2 }, 'Unexpected arguments: extra, more'],
    [{ type: 'question' }, 'question key is missing from poll data'],
    [{ type: 'question', question: 7 }, 'poll data["question"] is not a string'],
    [{ type: 'new_option' }, 'option key is missing from poll data'],
    [{ type: 'new_option', idx: 7, option: 999 }, 'poll data["option"] is not a string'],
    [{ type: 'new_option', idx: -1, option: 'pizza' }, 'poll data["idx"] is too small'],
    [{ type: 'new_option', idx: 1001, option: 'pizza' }, 'poll data["idx"] is too large'],
    [{ type: 'new_option', idx: 'bogus', option: 'maybe' }, 'poll data["idx"] is not an integer'],
    [{ type: 'new_option', idx: 1.5, option: 'maybe' }, 'poll data["idx"] is not an integer'],
  ])('%j → %s', (data, error) => {
    expect(poll(data)).toBe(error);
  });

  it('accepts votes, options and (from the author) questions', () => {
    expect(poll({ type: 'vote', key: '1,1', vote: 1 })).toBeNull();
    expect(poll({ type: 'vote', key: '1,1', vote: -1 }, false)).toBeNull();
    // Python's bool is an int: True is 1.
    expect(poll({ type: 'vote', key: '1,1', vote: true })).toBeNull();
    expect(poll({ type: 'new_option', idx: 7, option: 'maybe' }, false)).toBeNull();
    expect(poll({ type: 'question', question: "what's for dinner?" })).toBeNull();
    expect(poll({ type: 'question', question: 'Tabs or spaces?' }, false)).toBe(
      "You can't edit a question unless you are the author.",
    );
    // The author check comes before the keys'.
    expect(poll({ type: 'question' }, false)).toBe("You can't edit a question unless you are the author.");
  });
});

describe('validateTodoData (Zulip test_todo_type_validation)', () => {
  const todo = (data: unknown, author = true) => errorOf(() => validateTodoData(data, author));
  it.each([
    [5, 'todo data is not a dict'],
    [{ type: 'bogus' }, 'Unknown type for todo data: bogus'],
    [{ type: 'new_task' }, 'key key is missing from todo data'],
    [{ type: 'new_task', key: 7, task: 7, desc: '', completed: false }, 'todo data["task"] is not a string'],
    [{ type: 'new_task', key: -1, task: 'eat', desc: '', completed: false }, 'todo data["key"] is too small'],
    [{ type: 'new_task', key: 1001, task: 'eat', desc: '', completed: false }, 'todo data["key"] is too large'],
    [{ type: 'new_task', key: 1, task: 'eat', desc: '', completed: 'no' }, 'todo data["completed"] is not a boolean'],
    [{ type: 'new_task', key: 1, task: 'eat', desc: '' }, 'completed key is missing from todo data'],
    [{ type: 'strike' }, 'key key is missing from todo data'],
    [{ type: 'strike', key: 999 }, 'todo data["key"] is not a string'],
    [{ type: 'new_task_list_title' }, 'title key is missing from todo data'],
  ])('%j → %s', (data, error) => {
    expect(todo(data)).toBe(error);
  });

  it('accepts tasks, strikes and (from the author) titles', () => {
    expect(todo({ type: 'new_task', key: 7, task: 'eat', desc: '', completed: false }, false)).toBeNull();
    expect(todo({ type: 'strike', key: '5,9' }, false)).toBeNull();
    expect(todo({ type: 'new_task_list_title', title: 'School Work' })).toBeNull();
    expect(todo({ type: 'new_task_list_title', title: 'School Work' }, false)).toBe(
      "You can't edit the task list title unless you are the author.",
    );
  });
});
