import { Transform } from 'class-transformer';
import {
  ArrayMaxSize,
  MinLength,
  registerDecorator,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsObject,
  IsString,
  Matches,
  MaxLength,
} from 'class-validator';
import { ZulipError } from '../errors/zulip-error';
import { Arg, MAX_JSON_DEPTH, MAX_JSON_LIST_LENGTH, OptionalArg, paramSpecs, parseParams } from './params';

/** A send-message-like DTO: declaration order is the order Zulip checks parameters in. */
class SendArgs {
  @Arg()
  @IsString()
  content: string;

  @OptionalArg()
  @IsBoolean()
  read_by_sender?: boolean;

  @Arg({ json: false, aliases: ['subject'] })
  @IsString()
  @MaxLength(60)
  topic: string;

  @OptionalArg({ default: 'change_one', json: false })
  @IsIn(['change_one', 'change_later', 'change_all'])
  propagate_mode: string;
}

class TypedArgs {
  @OptionalArg()
  @IsInt()
  count?: number;

  @OptionalArg()
  @IsArray()
  @IsInt({ each: true })
  ids?: number[];

  @OptionalArg()
  @IsObject()
  data?: Record<string, unknown>;

  @OptionalArg({ json: false })
  @IsString()
  @Matches(/^[a-z]+$/)
  appid?: string;

  @OptionalArg()
  @IsArray()
  @ArrayMaxSize(3)
  small?: unknown[];

  @OptionalArg({ name: 'wire-name', json: false })
  @IsString()
  renamed?: string;
}

function params(entries: Record<string, string>): Map<string, string> {
  return new Map(Object.entries(entries));
}

/** The ZulipError parseParams throws for `source` (fails the test when it does not throw). */
function errorOf<T extends object>(dto: new () => T, source: Record<string, string>): ZulipError {
  try {
    parseParams(dto, params(source));
  } catch (err) {
    expect(err).toBeInstanceOf(ZulipError);
    return err as ZulipError;
  }
  throw new Error(`expected parseParams to fail for ${JSON.stringify(source)}`);
}

describe('parseParams', () => {
  it('records the parameters in declaration order', () => {
    expect(paramSpecs(SendArgs).map((s) => s.name)).toEqual(['content', 'read_by_sender', 'topic', 'propagate_mode']);
  });

  it('reads raw strings, decodes JSON for non-string types and applies defaults', () => {
    const { value, read } = parseParams(SendArgs, params({ content: 'hi', read_by_sender: 'true', topic: 'true' }));
    expect(value).toBeInstanceOf(SendArgs);
    expect(value.content).toBe('hi');
    expect(value.read_by_sender).toBe(true);
    // json:false parameters keep the raw text even when it looks like JSON.
    expect(value.topic).toBe('true');
    expect(value.propagate_mode).toBe('change_one');
    expect(read).toEqual(['content', 'read_by_sender', 'topic']);
  });

  it("applies a parameter's @Transform (class-transformer runs only for DTOs that declare one)", () => {
    class Trimmed {
      @Arg({ json: false })
      @IsString()
      @Transform(({ value }: { value: string }) => value.trim())
      @MinLength(1)
      name: string;

      @OptionalArg({ json: false })
      @IsString()
      note?: string;
    }
    const { value } = parseParams(Trimmed, params({ name: '  Denmark ', note: ' as sent ' }));
    expect(value).toBeInstanceOf(Trimmed);
    expect(value).toEqual({ name: 'Denmark', note: ' as sent ' });
    expect(errorOf(Trimmed, { name: '   ' }).message).toMatch(/^name/);
  });

  it('sees validation metadata declared after a class was first validated', () => {
    class Base {
      @Arg({ json: false })
      @IsString()
      @MaxLength(5)
      name: string;
    }
    expect(parseParams(Base, params({ name: 'abcd' })).value.name).toBe('abcd');
    class Derived extends Base {
      @Arg({ json: false })
      @IsString()
      @MaxLength(2)
      code: string;
    }
    expect(errorOf(Derived, { name: 'abcdef', code: 'ab' }).message).toMatch(/^name/);
    expect(errorOf(Derived, { name: 'abc', code: 'abc' }).message).toMatch(/^code/);
    // A constraint added to the first class itself, after it was validated.
    registerDecorator({
      target: Base,
      propertyName: 'name',
      validator: { validate: (value: unknown) => value !== 'abcd' },
      options: { message: 'name is refused' },
    });
    expect(errorOf(Base, { name: 'abcd' }).message).toBe('name is refused');
  });

  it('leaves an absent optional parameter without default undefined', () => {
    const { value } = parseParams(SendArgs, params({ content: 'x', topic: 't' }));
    expect(value.read_by_sender).toBeUndefined();
  });

  it('accepts an alias and records the alias as read', () => {
    const { value, read } = parseParams(SendArgs, params({ content: 'x', subject: 'old name' }));
    expect(value.topic).toBe('old name');
    expect(read).toContain('subject');
    expect(read).not.toContain('topic');
  });

  it('gives REQUEST_CONFUSING_VAR when both a name and its alias are sent', () => {
    const err = errorOf(SendArgs, { content: 'x', topic: 'a', subject: 'b' });
    expect(err.code).toBe('REQUEST_CONFUSING_VAR');
    expect(err.status).toBe(400);
    expect(err.message).toBe("Can't decide between 'topic' and 'subject' arguments");
    expect(err.toBody()).toEqual({
      result: 'error',
      msg: "Can't decide between 'topic' and 'subject' arguments",
      code: 'REQUEST_CONFUSING_VAR',
      var_name: 'topic',
    });
  });

  it('gives REQUEST_VARIABLE_MISSING with var_name for a missing required parameter', () => {
    const err = errorOf(SendArgs, { topic: 't' });
    expect(err.toBody()).toEqual({
      result: 'error',
      msg: "Missing 'content' argument",
      code: 'REQUEST_VARIABLE_MISSING',
      var_name: 'content',
    });
    expect(err.status).toBe(400);
  });

  it('names the canonical parameter (not the alias) when it is missing', () => {
    expect(errorOf(SendArgs, { content: 'x' }).toBody()).toMatchObject({
      msg: "Missing 'topic' argument",
      var_name: 'topic',
    });
  });

  describe('error priority follows declaration order', () => {
    it('an earlier missing parameter wins over a later bad value', () => {
      expect(errorOf(SendArgs, { read_by_sender: '"yes"', topic: 'x'.repeat(61) }).message).toBe(
        "Missing 'content' argument",
      );
    });

    it('an earlier bad type wins over a later missing parameter', () => {
      // read_by_sender (2nd) is valid JSON of the wrong type; topic (3rd) is missing.
      expect(errorOf(SendArgs, { content: 'x', read_by_sender: '1' }).message).toBe('read_by_sender is not a boolean');
    });

    it('an earlier invalid JSON wins over a later missing parameter', () => {
      const err = errorOf(SendArgs, { content: 'x', read_by_sender: 'yes' });
      expect(err.message).toBe('read_by_sender is not valid JSON');
      expect(err.code).toBe('BAD_REQUEST');
    });

    it('a later missing parameter is reported when the earlier ones are fine', () => {
      expect(errorOf(SendArgs, { content: 'x', read_by_sender: 'false' }).message).toBe("Missing 'topic' argument");
    });

    it('the first of two bad values is reported', () => {
      expect(
        errorOf(SendArgs, { content: 'x', read_by_sender: '"true"', topic: 'y'.repeat(61), propagate_mode: 'bogus' })
          .message,
      ).toBe('read_by_sender is not a boolean');
      expect(errorOf(SendArgs, { content: 'x', topic: 'y'.repeat(61), propagate_mode: 'bogus' }).message).toBe(
        'topic is too long (limit: 60 characters)',
      );
    });

    it('a string parameter given a JSON-looking value is type-checked as a string', () => {
      expect(errorOf(SendArgs, { content: 'x', topic: 't', propagate_mode: 'bogus' }).message).toBe(
        'Invalid propagate_mode',
      );
    });
  });

  describe("Zulip's texts for type and constraint failures", () => {
    it.each([
      [{ count: '"5"' }, 'count is not an integer'],
      [{ count: '1.5' }, 'count is not an integer'],
      [{ count: 'five' }, 'count is not valid JSON'],
      [{ ids: '5' }, 'ids is not a list'],
      [{ ids: '{"a":1}' }, 'ids is not a list'],
      [{ ids: '[1,"2"]' }, 'ids is not an integer'],
      [{ data: '[1]' }, 'data is not a dict'],
      [{ data: '"text"' }, 'data is not a dict'],
      [{ appid: "'; tables --" }, 'appid has invalid format'],
      [{ small: '[1,2,3,4]' }, 'small is too long (limit: 3 items)'],
    ])('%j → %s', (source, msg) => {
      const err = errorOf(TypedArgs, source as Record<string, string>);
      expect(err.message).toBe(msg);
      expect(err.code).toBe('BAD_REQUEST');
      expect(err.status).toBe(400);
    });

    it('uses the wire name of a renamed parameter', () => {
      const { value, read } = parseParams(TypedArgs, params({ 'wire-name': 'v', renamed: 'ignored' }));
      expect(value.renamed).toBe('v');
      expect(read).toEqual(['wire-name']);
    });

    it('accepts good values of every type', () => {
      const { value } = parseParams(
        TypedArgs,
        params({ count: '5', ids: '[1,2]', data: '{"k":[true]}', appid: 'abc', small: '[]' }),
      );
      expect(value).toMatchObject({ count: 5, ids: [1, 2], data: { k: [true] }, appid: 'abc', small: [] });
    });
  });

  describe('JSON limits and safety', () => {
    it(`accepts nesting up to depth ${MAX_JSON_DEPTH} and refuses deeper`, () => {
      const nest = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
      expect(parseParams(TypedArgs, params({ small: nest(MAX_JSON_DEPTH) })).value.small).toBeDefined();
      const err = errorOf(TypedArgs, { small: nest(MAX_JSON_DEPTH + 1) });
      expect(err.message).toBe('small is nested too deeply');
      expect(err.code).toBe('BAD_REQUEST');
    });

    it('refuses deep nesting inside objects too', () => {
      let json = '1';
      for (let i = 0; i <= MAX_JSON_DEPTH; i++) json = `{"a":${json}}`;
      expect(errorOf(TypedArgs, { data: json }).message).toBe('data is nested too deeply');
    });

    it(`refuses lists longer than ${MAX_JSON_LIST_LENGTH} items anywhere in the value`, () => {
      const long = JSON.stringify(new Array(MAX_JSON_LIST_LENGTH + 1).fill(1));
      expect(errorOf(TypedArgs, { ids: long }).message).toBe(`ids is too long (limit: ${MAX_JSON_LIST_LENGTH} items)`);
      expect(errorOf(TypedArgs, { data: `{"x":${long}}` }).message).toBe(
        `data is too long (limit: ${MAX_JSON_LIST_LENGTH} items)`,
      );
      const ok = JSON.stringify(new Array(MAX_JSON_LIST_LENGTH).fill(1));
      expect(parseParams(TypedArgs, params({ ids: ok })).value.ids).toHaveLength(MAX_JSON_LIST_LENGTH);
    });

    it('drops __proto__ keys instead of poisoning prototypes', () => {
      const { value } = parseParams(TypedArgs, params({ data: '{"__proto__":{"x":1},"y":2}' }));
      expect(value.data).toEqual({ y: 2 });
      expect(Object.getPrototypeOf(value.data)).toBe(Object.prototype);
      expect(Object.prototype.hasOwnProperty.call(value.data, '__proto__')).toBe(false);
      expect((value.data as Record<string, unknown>).x).toBeUndefined();
      expect(({} as Record<string, unknown>).x).toBeUndefined();
    });

    it('drops nested __proto__ and constructor.prototype payloads', () => {
      const { value } = parseParams(
        TypedArgs,
        params({ data: '{"a":{"__proto__":{"polluted":true}},"constructor":{"prototype":{"polluted":true}}}' }),
      );
      expect(value.data).toEqual({ a: {} });
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });
  });
});
