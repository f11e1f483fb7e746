/**
 * The per-render state shared by our markdown-it rules through `env`:
 * lookups built once from the caller's MarkdownContext, the collectors for
 * the flags the caller needs, and the limits.
 */
import type {
  LinkableChannel,
  MarkdownContext,
  MarkdownLimits,
  MentionGroup,
  MentionUser,
  RealmEmoji,
  ThumbnailSize,
} from './types';
import { HtmlStash } from './fenced-blocks';
import { RenderBudgetExceeded, resolveLimits } from './limits';
import { defaultThumbnailUrl } from './url';
import type { CompiledLinkifier, LinkifierMatch } from './linkifiers';

export interface ResolvedContext {
  readonly realmUrl: string | undefined;
  readonly usersById: ReadonlyMap<number, MentionUser>;
  readonly usersByName: ReadonlyMap<string, MentionUser>;
  readonly groupsByName: ReadonlyMap<string, MentionGroup>;
  readonly channelsByName: ReadonlyMap<string, LinkableChannel>;
  readonly realmEmojiByName: ReadonlyMap<string, RealmEmoji>;
  readonly linkifiers: readonly CompiledLinkifier[];
  readonly translateEmoticons: boolean;
  readonly imagePreviews: boolean;
  readonly thumbnailUrl: (url: string, size: ThumbnailSize) => string;
  readonly defaultCodeBlockLanguage: string | null;
  readonly emptyTopicDisplayName: string;
  readonly limits: MarkdownLimits;
}

/** Among users sharing a (case-insensitive) name, prefer active ones, then the lowest id. */
function preferredUser(a: MentionUser, b: MentionUser): MentionUser {
  if (a.isActive !== b.isActive) return a.isActive ? a : b;
  return a.id <= b.id ? a : b;
}

export function resolveContext(context: MarkdownContext = {}): ResolvedContext {
  const usersById = new Map<number, MentionUser>();
  const usersByName = new Map<string, MentionUser>();
  for (const user of context.users ?? []) {
    usersById.set(user.id, user);
    const key = user.fullName.toLowerCase();
    const existing = usersByName.get(key);
    usersByName.set(key, existing ? preferredUser(existing, user) : user);
  }
  const groupsByName = new Map<string, MentionGroup>();
  for (const group of context.groups ?? []) groupsByName.set(group.name.toLowerCase(), group);
  const channelsByName = new Map<string, LinkableChannel>();
  for (const channel of context.channels ?? []) channelsByName.set(channel.name, channel);
  const realmEmojiByName = new Map<string, RealmEmoji>();
  for (const emoji of context.realmEmoji ?? []) realmEmojiByName.set(emoji.name, emoji);
  return {
    realmUrl: context.realmUrl?.replace(/\/+$/, ''),
    usersById,
    usersByName,
    groupsByName,
    channelsByName,
    realmEmojiByName,
    linkifiers: context.linkifiers ?? [],
    translateEmoticons: context.translateEmoticons ?? false,
    imagePreviews: context.imagePreviews ?? true,
    thumbnailUrl: context.thumbnailUrl ?? defaultThumbnailUrl,
    defaultCodeBlockLanguage: context.defaultCodeBlockLanguage ?? null,
    emptyTopicDisplayName: context.emptyTopicDisplayName ?? 'general chat',
    limits: resolveLimits(context.limits),
  };
}

/** What one render collects besides the HTML. */
export interface RenderCollector {
  mentionedUserIds: Set<number>;
  mentionedGroupIds: Set<number>;
  mentionsStreamWildcard: boolean;
  mentionsTopicWildcard: boolean;
  channelLinks: number;
  texRendered: number;
}

/** The markdown-it `env` object for one render. */
export interface RenderEnv {
  readonly ctx: ResolvedContext;
  readonly stash: HtmlStash;
  readonly collector: RenderCollector;
  readonly deadline: number;
  /** marked's "top" flag: tables and multi-line paragraphs are top-level constructs. */
  top: boolean;
  /** Parsing the direct content of a tight list item (paragraphs render without <p>). */
  tightItem: boolean;
  blockDepth: number;
  quoteDepth: number;
  /** Set while parsing an inline token that sits inside a blockquote. */
  inQuote: boolean;
  /** Set while parsing link text, where Zulip does no further formatting. */
  inLink: boolean;
  inlineDepth: number;
  /** The linkifier links of the inline text last parsed. */
  linkifierCache: { src: string; links: readonly LinkifierMatch[] } | null;
}

export function createEnv(ctx: ResolvedContext, now: number): RenderEnv {
  return {
    ctx,
    stash: new HtmlStash(),
    collector: {
      mentionedUserIds: new Set(),
      mentionedGroupIds: new Set(),
      mentionsStreamWildcard: false,
      mentionsTopicWildcard: false,
      channelLinks: 0,
      texRendered: 0,
    },
    deadline: now + ctx.limits.maxRenderMillis,
    top: true,
    tightItem: false,
    blockDepth: 0,
    quoteDepth: 0,
    inQuote: false,
    inLink: false,
    inlineDepth: 0,
    linkifierCache: null,
  };
}

export function checkDeadline(env: RenderEnv): void {
  if (Date.now() > env.deadline) throw new RenderBudgetExceeded();
}
