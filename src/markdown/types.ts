import type { CompiledLinkifier } from './linkifiers';

/**
 * Public types of the Markdown renderer.  Rendering is two-phase so that it
 * never touches the database:
 *
 *   1. `collectReferences(content)` lists the user names/ids, group names,
 *      channel names and emoji names the message might refer to;
 *   2. the caller batch-loads those rows and calls
 *      `renderMarkdown(content, context)` with a `MarkdownContext`.
 */

/** A user a mention might resolve to. */
export interface MentionUser {
  readonly id: number;
  readonly fullName: string;
  /** Deactivated users are still rendered, but as silent mentions. */
  readonly isActive: boolean;
}

/** A user group a `@*group*` mention might resolve to. */
export interface MentionGroup {
  readonly id: number;
  readonly name: string;
  /** Deactivated groups are rendered as silent mentions. */
  readonly deactivated?: boolean;
}

/** A channel `#**channel**` links might resolve to (only channels the sender may link). */
export interface LinkableChannel {
  readonly id: number;
  readonly name: string;
}

/** An active custom emoji of the realm. */
export interface RealmEmoji {
  readonly id: string;
  readonly name: string;
  readonly sourceUrl: string;
}

export type ThumbnailSize = 'full' | 'thumbnail';

/** Size and time bounds; every field has a default (see limits.ts). */
export interface MarkdownLimits {
  /** Longer input is not parsed as Markdown; it is rendered as escaped plain text. */
  readonly maxInputLength: number;
  /** Wall-clock budget for one render, in milliseconds; past it we fall back to plain text. */
  readonly maxRenderMillis: number;
  /** Deepest nesting of quotes/lists/spoilers; deeper markup is kept as text. */
  readonly maxBlockNesting: number;
  /** Deepest nesting of inline markup (emphasis, strikethrough, links). */
  readonly maxInlineNesting: number;
  /** Most `$$…$$` / math blocks rendered with KaTeX; later ones are shown as source. */
  readonly maxTexExpressions: number;
  /** Longest TeX source rendered with KaTeX. */
  readonly maxTexLength: number;
  /** Zulip previews no links at all when a message has more distinct links than this. */
  readonly maxInlinePreviews: number;
}

export interface MarkdownContext {
  /** The realm's URL without a trailing slash, e.g. "https://chat.example.com". Links into it become relative. */
  readonly realmUrl?: string;
  /** Candidate users (from collectReferences), active and deactivated. */
  readonly users?: readonly MentionUser[];
  /** Candidate (non-system) user groups. */
  readonly groups?: readonly MentionGroup[];
  /** Channels the sender can link to, matched by exact name. */
  readonly channels?: readonly LinkableChannel[];
  /** Active realm emoji; they win over Unicode emoji of the same name. */
  readonly realmEmoji?: readonly RealmEmoji[];
  /** The realm's linkifiers, in order (compileLinkifiers; compile once per realm, not per render). */
  readonly linkifiers?: readonly CompiledLinkifier[];
  /** The sender's `translate_emoticons` setting: `:)` becomes 🙂. */
  readonly translateEmoticons?: boolean;
  /** The realm's `inline_image_preview` setting (default true). */
  readonly imagePreviews?: boolean;
  /**
   * URL of an image preview.  Default: Zulip's thumbnail endpoint,
   * `/thumbnail?url=<url>&size=<size>`.
   */
  readonly thumbnailUrl?: (url: string, size: ThumbnailSize) => string;
  /** The realm's `default_code_block_language`, used for fences without a language. */
  readonly defaultCodeBlockLanguage?: string | null;
  /** How `#**channel>**` (the empty topic) is displayed; Zulip's default is "general chat". */
  readonly emptyTopicDisplayName?: string;
  /** Override size/time bounds. */
  readonly limits?: Partial<MarkdownLimits>;
}

/** What collectReferences found; feed it to your batch loaders. */
export interface MarkdownReferences {
  /** Names from `@**Name**` and `@**Name|id**` (as typed; match case-insensitively). */
  readonly userNames: string[];
  /** Ids from `@**Name|id**` and `@**|id**`. */
  readonly userIds: number[];
  /** True if the text contains `@**all**`-style wildcards (`all`, `everyone`, `channel`, `stream`, `topic`). */
  readonly hasWildcardMention: boolean;
  /** Names from `@*group*` (match case-insensitively). */
  readonly groupNames: string[];
  /** Channel names from `#**channel**` and `#**channel>topic**` (match exactly). */
  readonly channelNames: string[];
  /** Names from `:name:` syntax, for loading realm emoji. */
  readonly emojiNames: string[];
}

export type DegradedReason = 'too_large' | 'timeout' | 'output_too_large';

export interface RenderedMessage {
  /** The sanitized HTML (Zulip's `rendered_content`). */
  readonly html: string;
  /** Users mentioned non-silently (silent, quoted and deactivated-user mentions excluded). */
  readonly mentionedUserIds: number[];
  /** Groups mentioned non-silently; the caller expands them to members. */
  readonly mentionedGroupIds: number[];
  readonly mentionsStreamWildcard: boolean;
  readonly mentionsTopicWildcard: boolean;
  /** The content starts with "/me ". */
  readonly isMeMessage: boolean;
  /** The message contains a link (including channel/topic links), as Zulip's `has_link`. */
  readonly hasLink: boolean;
  /** An inline image preview was added, as Zulip's `has_image`. */
  readonly hasImage: boolean;
  /** The message links to uploaded files (`/user_uploads/...`); confirm against Attachment rows. */
  readonly hasAttachment: boolean;
  /** Path ids (the part after `/user_uploads/`) of uploads the message links to, in order, deduplicated. */
  readonly linkedUploadPathIds: string[];
  /** Set when the input was not rendered as Markdown because a limit was hit. */
  readonly degraded: DegradedReason | null;
}
