/**
 * `<time:…>` parsing.  Zulip's composer inserts ISO 8601 times
 * (`<time:2024-03-01T15:00:00+01:00>`); people also type dates by hand.  We
 * accept, deterministically and always in UTC unless an offset is given:
 *
 *   - ISO 8601 dates and date-times, with `Z`/`UTC`/`GMT` or a ±hh:mm offset;
 *   - UNIX timestamps in seconds;
 *   - "31 Dec 2017", "Dec 31, 2017", "December 31 2017", optionally with a
 *     weekday in front and a time ("5:30 pm", "17:30:05") and offset after.
 *
 * Anything else (including time-zone abbreviations such as "IST", which are
 * ambiguous) is not a valid time, and times before 1970 are rejected, as in
 * Zulip's web client.  Returns epoch milliseconds or null.
 */

const MONTHS: Record<string, number> = {
  jan: 1,
  feb: 2,
  mar: 3,
  apr: 4,
  may: 5,
  jun: 6,
  jul: 7,
  aug: 8,
  sep: 9,
  sept: 9,
  oct: 10,
  nov: 11,
  dec: 12,
  january: 1,
  february: 2,
  march: 3,
  april: 4,
  june: 6,
  july: 7,
  august: 8,
  september: 9,
  october: 10,
  november: 11,
  december: 12,
};

const WEEKDAY = '(?:(?:mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)(?:day|nesday|sday|urday)?\\.?,?\\s+)?';
const TIME = '(?:,?\\s+(\\d{1,2})(?::(\\d{2})(?::(\\d{2}))?)?\\s*(am|pm|a\\.m\\.|p\\.m\\.)?)?';
const ZONE = '(?:\\s*(z|utc|gmt|[+-]\\d{2}:?\\d{2}))?';

const ISO_RE =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?\s*(z|utc|gmt|[+-]\d{2}:?\d{2})?$/i;
const DAY_MONTH_YEAR_RE = new RegExp(
  `^${WEEKDAY}(\\d{1,2})(?:st|nd|rd|th)?\\s+([a-z]+)\\.?,?\\s+(\\d{4})${TIME}${ZONE}$`,
  'i',
);
const MONTH_DAY_YEAR_RE = new RegExp(
  `^${WEEKDAY}([a-z]+)\\.?\\s+(\\d{1,2})(?:st|nd|rd|th)?,?\\s+(\\d{4})${TIME}${ZONE}$`,
  'i',
);
const EPOCH_RE = /^-?\d{1,12}(?:\.\d+)?$/;

function zoneOffsetMinutes(zone: string | undefined): number {
  if (!zone || /^(z|utc|gmt)$/i.test(zone)) return 0;
  const m = /^([+-])(\d{2}):?(\d{2})$/.exec(zone);
  if (!m) return NaN;
  const minutes = Number(m[2]) * 60 + Number(m[3]);
  return m[1] === '-' ? -minutes : minutes;
}

function build(
  year: number,
  month: number,
  day: number,
  hour: number,
  minute: number,
  second: number,
  millis: number,
  offsetMinutes: number,
): number | null {
  if (!Number.isFinite(offsetMinutes)) return null;
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return null;
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (day > daysInMonth) return null;
  return Date.UTC(year, month - 1, day, hour, minute, second, millis) - offsetMinutes * 60_000;
}

function hourWithMeridiem(hourText: string | undefined, meridiem: string | undefined): number {
  if (hourText === undefined) return 0;
  const hour = Number(hourText);
  if (!meridiem) return hour;
  if (hour < 1 || hour > 12) return NaN;
  const pm = meridiem.toLowerCase().startsWith('p');
  return (hour % 12) + (pm ? 12 : 0);
}

function parseHuman(day: string, monthName: string, year: string, rest: (string | undefined)[]): number | null {
  const month = MONTHS[monthName.toLowerCase()];
  if (!month) return null;
  const [hourText, minuteText, secondText, meridiem, zone] = rest;
  const hour = hourWithMeridiem(hourText, meridiem);
  if (!Number.isInteger(hour)) return null;
  return build(
    Number(year),
    month,
    Number(day),
    hour,
    Number(minuteText ?? 0),
    Number(secondText ?? 0),
    0,
    zoneOffsetMinutes(zone),
  );
}

export function parseTimestamp(input: string): number | null {
  const text = input.trim();
  let ms: number | null = null;
  let m: RegExpExecArray | null;
  if (EPOCH_RE.test(text)) {
    ms = Math.round(Number(text) * 1000);
  } else if ((m = ISO_RE.exec(text))) {
    const millis = m[7] ? Math.round(Number('0.' + m[7]) * 1000) : 0;
    ms = build(
      Number(m[1]),
      Number(m[2]),
      Number(m[3]),
      Number(m[4] ?? 0),
      Number(m[5] ?? 0),
      Number(m[6] ?? 0),
      millis,
      zoneOffsetMinutes(m[8]),
    );
  } else if ((m = DAY_MONTH_YEAR_RE.exec(text))) {
    ms = parseHuman(m[1], m[2], m[3], m.slice(4));
  } else if ((m = MONTH_DAY_YEAR_RE.exec(text))) {
    ms = parseHuman(m[2], m[1], m[3], m.slice(4));
  }
  if (ms === null || !Number.isFinite(ms) || ms < 0 || ms > 8.64e15) return null;
  return ms;
}

/** "2017-12-31T00:00:00Z": ISO 8601 in UTC without fractional seconds. */
export function formatIsoSeconds(ms: number): string {
  return new Date(ms).toISOString().split('.')[0] + 'Z';
}
