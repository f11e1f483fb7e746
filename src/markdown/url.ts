/**
 * URL handling for links and previews, following Zulip's
 * `sanitize_url`, `rewrite_local_links_to_relative` and the preview helpers,
 * but with a stricter scheme policy: only http, https and mailto links are
 * produced (Zulip also allows ftp, tel, irc, ... ).
 */
import type { ThumbnailSize } from './types';

export interface SplitUrl {
  scheme: string;
  netloc: string;
  path: string;
  query: string;
  fragment: string;
}

const SCHEME_RE = /^([a-zA-Z][a-zA-Z0-9+.-]*):/;

/** A small `urllib.parse.urlsplit`: enough to classify links. */
export function splitUrl(url: string): SplitUrl {
  let rest = url;
  let scheme = '';
  const schemeMatch = SCHEME_RE.exec(rest);
  if (schemeMatch) {
    scheme = schemeMatch[1].toLowerCase();
    rest = rest.slice(schemeMatch[0].length);
  }
  let netloc = '';
  if (rest.startsWith('//')) {
    const end = rest.slice(2).search(/[/?#]/);
    netloc = end === -1 ? rest.slice(2) : rest.slice(2, 2 + end);
    rest = end === -1 ? '' : rest.slice(2 + end);
  }
  let fragment = '';
  const hash = rest.indexOf('#');
  if (hash !== -1) {
    fragment = rest.slice(hash + 1);
    rest = rest.slice(0, hash);
  }
  let query = '';
  const q = rest.indexOf('?');
  if (q !== -1) {
    query = rest.slice(q + 1);
    rest = rest.slice(0, q);
  }
  return { scheme, netloc, path: rest, query, fragment };
}

function hostOf(netloc: string): string {
  const at = netloc.lastIndexOf('@');
  return (at === -1 ? netloc : netloc.slice(at + 1)).toLowerCase();
}

export const ALLOWED_LINK_SCHEMES: ReadonlySet<string> = new Set(['http', 'https', 'mailto']);

// Browsers ignore leading C0 controls/spaces and tabs/newlines anywhere in a
// URL; strip them before looking at the scheme so "java\nscript:" cannot hide.
// eslint-disable-next-line no-control-regex
const LEADING_JUNK = /^[\u0000-\u0020]+/;
const EMBEDDED_JUNK = /[\t\n\r]/g;

/**
 * Zulip's sanitize_url: returns the href to use, or null if the link must
 * not be produced.  Scheme-less URLs become http://, "a@b" becomes mailto:,
 * "/path" and "#fragment" stay relative.
 */
export function sanitizeLinkUrl(rawUrl: string, depth = 0): string | null {
  const url = rawUrl.replace(LEADING_JUNK, '').replace(EMBEDDED_JUNK, '').replace(/ /g, '%20');
  if (url === '') return null;
  const parts = splitUrl(url);
  if (parts.scheme === '' && parts.netloc === '') {
    if (parts.path.includes('@')) return 'mailto:' + url;
    if (parts.path.startsWith('/') && !parts.path.startsWith('//')) return url;
    if (parts.path === '' && parts.query === '' && parts.fragment !== '') return url;
  }
  if (parts.scheme === '') {
    return depth === 0 ? sanitizeLinkUrl('http://' + url, 1) : null;
  }
  if (!ALLOWED_LINK_SCHEMES.has(parts.scheme)) return null;
  // Normalise the scheme's case, keep the rest as written.
  return parts.scheme + url.slice(url.indexOf(':'));
}

/** Links into the realm itself (`/#narrow/...`, `/user_uploads/...`) become relative, as in Zulip. */
export function rewriteLocalLink(href: string, realmUrl: string | undefined): string {
  if (!realmUrl) return href;
  const prefix = realmUrl.replace(/\/+$/, '') + '/';
  if (href.startsWith(prefix + '#') || href.startsWith(prefix + 'user_uploads/')) {
    return href.slice(prefix.length);
  }
  return href;
}

/**
 * Path id of an uploaded file a link points to (the part after
 * "/user_uploads/"), or null.  Relative links and links to the realm's own
 * host count; other hosts do not.
 */
export function uploadPathId(href: string, realmUrl: string | undefined): string | null {
  const parts = splitUrl(href.startsWith('user_uploads/') ? '/' + href : href);
  if (parts.netloc !== '') {
    if (!realmUrl) return null;
    if (hostOf(parts.netloc) !== hostOf(splitUrl(realmUrl).netloc)) return null;
  } else if (parts.scheme !== '') {
    return null;
  }
  if (!parts.path.startsWith('/user_uploads/')) return null;
  const id = parts.path.slice('/user_uploads/'.length);
  return id === '' ? null : id;
}

/** Python's `urllib.parse.quote(s, safe="")`: percent-encodes all but `A-Za-z0-9_.-~`. */
export function pythonQuote(text: string): string {
  return encodeURIComponent(text).replace(/[!'()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase());
}

/** Zulip's hash_util_encode: URL-quote, then "." → "%2E" and "%" → ".". */
export function hashUtilEncode(text: string): string {
  return pythonQuote(text).replace(/\./g, '%2E').replace(/%/g, '.');
}

/** "99-Verona" style channel slug used in narrow URLs. */
export function encodeChannel(channelId: number, name: string): string {
  return `${channelId}-${hashUtilEncode(name.replace(/ /g, '-'))}`;
}

export function defaultThumbnailUrl(url: string, size: ThumbnailSize): string {
  return `/thumbnail?url=${pythonQuote(url)}&size=${size}`;
}

const IMAGE_EXTENSIONS = ['.bmp', '.gif', '.jpe', '.jpeg', '.jpg', '.png', '.webp'];

/** Zulip previews links whose path ends in an image extension. */
export function looksLikeImage(url: string): boolean {
  const parts = splitUrl(url);
  if (parts.netloc.toLowerCase() === 'pasteboard.co') return false;
  const path = parts.path.toLowerCase();
  return IMAGE_EXTENSIONS.some((ext) => path.endsWith(ext));
}

/** github.com/<owner>/<repo>/blob/<path> images are served from raw.githubusercontent.com. */
export function actualImageUrl(url: string): string {
  const parts = splitUrl(url);
  const host = hostOf(parts.netloc);
  if (host === 'github.com' || host.endsWith('.github.com')) {
    const segments = parts.path.split('/');
    if (segments.length > 3 && segments[3] === 'blob') {
      return 'https://raw.githubusercontent.com' + [...segments.slice(0, 3), ...segments.slice(4)].join('/');
    }
  }
  return url;
}

const YOUTUBE_HOSTS = new Set([
  'm.youtube.com',
  'www.youtube.com',
  'www.youtube-nocookie.com',
  'youtube.com',
  'youtube-nocookie.com',
]);

/** The video id of a YouTube URL, as Zulip's youtube_id. */
export function youtubeVideoId(url: string): string | null {
  const parts = splitUrl(url);
  if (parts.scheme !== 'http' && parts.scheme !== 'https') return null;
  const host = hostOf(parts.netloc).replace(/:\d+$/, '');
  let id: string | null = null;
  if (YOUTUBE_HOSTS.has(host)) {
    const query = new URLSearchParams(parts.query);
    if ((parts.path === '/watch' || parts.path === '/watch_popup') && query.has('v')) {
      id = query.get('v');
    } else if (parts.path === '/watch_videos' && query.has('video_ids')) {
      id = (query.get('video_ids') ?? '').split(',')[0];
    } else if (/^\/(embed|shorts|v)\//.test(parts.path)) {
      id = parts.path.split('/')[2] ?? null;
    }
  } else if (host === 'youtu.be' && parts.path.startsWith('/')) {
    id = parts.path.slice(1);
  }
  return id !== null && /^[0-9A-Za-z_-]+$/.test(id) ? id : null;
}
