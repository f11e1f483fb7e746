import { Controller, Delete, Get, Param, Patch, Post, UseGuards } from '@nestjs/common';
import type { AuthContext } from '../common/auth/auth.types';
import { CurrentUser } from '../common/auth/decorators';
import { ParamErrors } from '../common/errors/param.errors';
import { Args } from '../common/http/params';
import { PathIntPipe } from '../common/http/path-int.pipe';
import { Limits } from '../common/limits';
import { codePointLength, pyStrip } from '../messaging/message-text';
import { DraftsSyncGuard } from './drafts.guard';
import { parseDraftData, parseDraftList } from './drafts.policy';
import { DraftsService } from './drafts.service';
import { CreateDraftsArgs, CreateSnippetArgs, EditDraftArgs, EditSnippetArgs } from './dto/drafts.dto';
import { SavedSnippetsService } from './saved-snippets.service';

/** Zulip's SavedSnippet.MAX_TITLE_LENGTH. */
export const MAX_SNIPPET_TITLE_LENGTH = 60;

/** GET/POST /drafts, PATCH/DELETE /drafts/{draft_id} (zerver/views/drafts.py). */
@Controller('api/v1/drafts')
@UseGuards(DraftsSyncGuard)
export class DraftsController {
  constructor(private readonly drafts: DraftsService) {}

  @Get()
  async list(@CurrentUser() auth: AuthContext) {
    const drafts = await this.drafts.draftsOf(auth.user.id);
    return { count: drafts.length, drafts };
  }

  @Post()
  async create(@CurrentUser() auth: AuthContext, @Args(CreateDraftsArgs) args: CreateDraftsArgs) {
    return { ids: await this.drafts.create(auth, parseDraftList(args.drafts)) };
  }

  @Patch(':draft_id')
  async edit(
    @CurrentUser() auth: AuthContext,
    @Param('draft_id', PathIntPipe) draftId: number,
    @Args(EditDraftArgs) args: EditDraftArgs,
  ) {
    await this.drafts.edit(auth, draftId, parseDraftData(args.draft, 'draft'));
    return {};
  }

  @Delete(':draft_id')
  async remove(@CurrentUser() auth: AuthContext, @Param('draft_id', PathIntPipe) draftId: number) {
    await this.drafts.remove(auth, draftId);
    return {};
  }
}

/**
 * A title or content as StringConstraints(strip_whitespace=True, min_length=1, max_length=n)
 * leaves it: stripped, not blank, not too long; NUL (which PostgreSQL text cannot hold) refused.
 */
function snippetText(name: string, value: string, max: number): string {
  const text = pyStrip(value);
  if (text.length === 0) throw ParamErrors.cannotBeBlank(name);
  if (codePointLength(text) > max) throw ParamErrors.tooLong(name, max);
  const nul = text.indexOf('\0');
  if (nul >= 0) throw ParamErrors.invalidCharacter(name, codePointLength(text.slice(0, nul)) + 1);
  return text;
}

/** GET/POST /saved_snippets, PATCH/DELETE /saved_snippets/{id} (zerver/views/saved_snippets.py). */
@Controller('api/v1/saved_snippets')
export class SavedSnippetsController {
  constructor(private readonly snippets: SavedSnippetsService) {}

  @Get()
  async list(@CurrentUser() auth: AuthContext) {
    return { saved_snippets: await this.snippets.snippetsOf(auth.user.id) };
  }

  @Post()
  async create(@CurrentUser() auth: AuthContext, @Args(CreateSnippetArgs) args: CreateSnippetArgs) {
    const title = snippetText('title', args.title, MAX_SNIPPET_TITLE_LENGTH);
    const content = snippetText('content', args.content, Limits.MAX_MESSAGE_LENGTH);
    return { saved_snippet_id: await this.snippets.create(auth, title, content) };
  }

  @Patch(':saved_snippet_id')
  async edit(
    @CurrentUser() auth: AuthContext,
    @Param('saved_snippet_id', PathIntPipe) id: number,
    @Args(EditSnippetArgs) args: EditSnippetArgs,
  ) {
    const title = args.title === undefined ? undefined : snippetText('title', args.title, MAX_SNIPPET_TITLE_LENGTH);
    const content =
      args.content === undefined ? undefined : snippetText('content', args.content, Limits.MAX_MESSAGE_LENGTH);
    // As Zulip: nothing to change answers success at once, with no event.
    if (title === undefined && content === undefined) return {};
    await this.snippets.edit(auth, id, title, content);
    return {};
  }

  @Delete(':saved_snippet_id')
  async remove(@CurrentUser() auth: AuthContext, @Param('saved_snippet_id', PathIntPipe) id: number) {
    await this.snippets.remove(auth, id);
    return {};
  }
}
