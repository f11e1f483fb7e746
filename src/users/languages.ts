/**
 * The languages a user may choose as `default_language`: the translations Zulip ships
 * (its locale/ directory), by Django language code, with each language's name in itself as
 * Zulip's language list gives it (`language_name` in settings events).
 */
export const LANGUAGE_NAMES: Readonly<Record<string, string>> = Object.freeze({
  ar: 'العربية',
  be: 'беларуская',
  bg: 'български',
  bn: 'বাংলা',
  bqi: 'Bakhtiari',
  ca: 'català',
  cs: 'čeština',
  cy: 'Cymraeg',
  da: 'dansk',
  de: 'Deutsch',
  el: 'Ελληνικά',
  en: 'English',
  'en-gb': 'British English',
  eo: 'Esperanto',
  es: 'español',
  et: 'eesti',
  fa: 'فارسی',
  fi: 'suomi',
  fr: 'français',
  gl: 'galego',
  gu: 'ગુજરાતી',
  hi: 'हिन्दी',
  hu: 'magyar',
  id: 'Bahasa Indonesia',
  it: 'italiano',
  ja: '日本語',
  kk: 'қазақ тілі',
  ko: '한국어',
  lt: 'lietuvių',
  lv: 'latviešu',
  ml: 'മലയാളം',
  mn: 'монгол',
  my: 'မြန်မာ',
  nl: 'Nederlands',
  no: 'norsk',
  pl: 'polski',
  pt: 'português',
  'pt-br': 'português (Brasil)',
  'pt-pt': 'português europeu',
  ro: 'română',
  ru: 'русский',
  si: 'සිංහල',
  sl: 'slovenščina',
  sr: 'српски',
  sv: 'svenska',
  ta: 'தமிழ்',
  tl: 'Filipino',
  tr: 'Türkçe',
  uk: 'українська',
  vi: 'Tiếng Việt',
  'zh-hans': '简体中文',
  'zh-hant': '繁體中文',
  'zh-tw': '中文（台灣）',
});

export function isAvailableLanguage(code: string): boolean {
  return Object.prototype.hasOwnProperty.call(LANGUAGE_NAMES, code);
}

/** A time zone name the server recognizes (an IANA name the runtime's time zone data knows). */
export function isRecognizedTimezone(name: string): boolean {
  if (name === '' || name.trim() !== name) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}
