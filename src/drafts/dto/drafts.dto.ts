import { IsString } from 'class-validator';
import { Arg, OptionalArg } from '../../common/http/params';

/** POST /drafts: `drafts`, a JSON list of draft dicts (checked by parseDraftList). */
export class CreateDraftsArgs {
  @Arg({ json: true }) drafts: unknown;
}

/** PATCH /drafts/{draft_id}: `draft`, one JSON draft dict. */
export class EditDraftArgs {
  @Arg({ json: true }) draft: unknown;
}

/** POST /saved_snippets (Zulip's parameter order: title, content). */
export class CreateSnippetArgs {
  @Arg({ json: false }) @IsString() title: string;
  @Arg({ json: false }) @IsString() content: string;
}

/** PATCH /saved_snippets/{saved_snippet_id}. */
export class EditSnippetArgs {
  @OptionalArg({ json: false }) @IsString() title?: string;
  @OptionalArg({ json: false }) @IsString() content?: string;
}
