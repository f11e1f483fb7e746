import { basename } from 'node:path';

/**
 * Zulip's sanitize_name: safe for a file system, object stores and URLs. Unicode letters and
 * digits stay; every other character except `.`, `-`, `_` and spaces is dropped; runs of spaces
 * and dashes become one dash. Nothing usable left (or `.`/`..`) gives `uploaded-file`.
 */
export function sanitizeName(value: string): string {
  let name = value.normalize('NFKC');
  name = name.replace(/[^\p{L}\p{N}_\s.-]/gu, '').trim();
  name = name.replace(/[-\s]+/gu, '-');
  if (name === '' || name === '.' || name === '..') return 'uploaded-file';
  return name;
}

/**
 * Zulip's INLINE_MIME_TYPES: the only types a browser may display in place. Everything else is
 * served as a download (never add HTML, SVG, XML or script types here).
 */
export const INLINE_MIME_TYPES: ReadonlySet<string> = new Set([
  'application/pdf',
  'audio/aac',
  'audio/flac',
  'audio/mp4',
  'audio/mpeg',
  'audio/wav',
  'audio/webm',
  'image/apng',
  'image/avif',
  'image/gif',
  'image/jpeg',
  'image/png',
  'image/webp',
  'text/plain',
  'video/mp4',
  'video/webm',
]);

const BY_EXTENSION: Record<string, string> = {
  apng: 'image/apng',
  avif: 'image/avif',
  bmp: 'image/bmp',
  csv: 'text/csv',
  doc: 'application/msword',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  flac: 'audio/flac',
  gif: 'image/gif',
  gz: 'application/gzip',
  htm: 'text/html',
  html: 'text/html',
  jpeg: 'image/jpeg',
  jpg: 'image/jpeg',
  js: 'text/javascript',
  json: 'application/json',
  m4a: 'audio/mp4',
  md: 'text/markdown',
  mov: 'video/quicktime',
  mp3: 'audio/mpeg',
  mp4: 'video/mp4',
  odt: 'application/vnd.oasis.opendocument.text',
  ogg: 'audio/ogg',
  pdf: 'application/pdf',
  png: 'image/png',
  ppt: 'application/vnd.ms-powerpoint',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  py: 'text/x-python',
  svg: 'image/svg+xml',
  tar: 'application/x-tar',
  tif: 'image/tiff',
  tiff: 'image/tiff',
  txt: 'text/plain',
  wav: 'audio/wav',
  webm: 'video/webm',
  webp: 'image/webp',
  xls: 'application/vnd.ms-excel',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  xml: 'text/xml',
  zip: 'application/zip',
};

/** Python's mimetypes.guess_type, for the common extensions; null when unknown. */
export function guessContentType(fileName: string): string | null {
  const dot = fileName.lastIndexOf('.');
  if (dot < 0) return null;
  return BY_EXTENSION[fileName.slice(dot + 1).toLowerCase()] ?? null;
}

/**
 * The content type to store: the client's (reduced to `type/subtype`, lower case) when it is
 * well-formed, else a guess from the name, else `application/octet-stream`.
 */
export function uploadContentType(declared: string | undefined, fileName: string): string {
  const essence = (declared ?? '').split(';')[0].trim().toLowerCase();
  if (/^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/.test(essence)) {
    if (essence !== 'application/octet-stream') return essence;
  }
  return guessContentType(fileName) ?? 'application/octet-stream';
}

/** RFC 6266 / RFC 8187 Content-Disposition for the last segment of a path id (Zulip's). */
export function contentDisposition(pathId: string, inline: boolean): string {
  const name = basename(pathId);
  const kind = inline ? 'inline' : 'attachment';

  if (/^[\x20-\x7e]*$/.test(name)) return `${kind}; filename="${name.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
  return `${kind}; filename*=utf-8''${encodeURIComponent(name).replace(/['()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase())}`;
}
