import { Controller, Delete, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import type { AuthContext } from '../common/auth/auth.types';
import { CurrentUser, RequireRole } from '../common/auth/decorators';
import { Args } from '../common/http/params';
import { PathIntPipe } from '../common/http/path-int.pipe';
import { CustomProfileFieldsService } from './custom-profile-fields.service';
import {
  CreateProfileFieldArgs,
  ReorderProfileFieldsArgs,
  UpdateProfileFieldArgs,
} from './dto/custom-profile-fields.dto';

/** Zulip's zerver/views/custom_profile_fields.py (definitions; values are set through the users API). */
@Controller('api/v1/realm/profile_fields')
export class CustomProfileFieldsController {
  constructor(private readonly fields: CustomProfileFieldsService) {}

  @Get()
  async list(@CurrentUser() auth: AuthContext) {
    return { custom_fields: await this.fields.listForApi(auth.realm.id) };
  }

  @Post()
  @HttpCode(200)
  @RequireRole('admin')
  async create(@CurrentUser() auth: AuthContext, @Args(CreateProfileFieldArgs) args: CreateProfileFieldArgs) {
    const id = await this.fields.createField(auth.realm.id, {
      name: args.name,
      hint: args.hint,
      fieldType: args.field_type,
      fieldData: args.field_data,
      displayInProfileSummary: args.display_in_profile_summary,
      required: args.required,
      editableByUser: args.editable_by_user,
    });
    return { id };
  }

  @Patch()
  @RequireRole('admin')
  async reorder(@CurrentUser() auth: AuthContext, @Args(ReorderProfileFieldsArgs) args: ReorderProfileFieldsArgs) {
    await this.fields.reorderFields(auth.realm.id, args.order);
    return {};
  }

  @Patch(':field_id')
  @RequireRole('admin')
  async update(
    @CurrentUser() auth: AuthContext,
    @Param('field_id', PathIntPipe) fieldId: number,
    @Args(UpdateProfileFieldArgs) args: UpdateProfileFieldArgs,
  ) {
    await this.fields.updateField(auth.realm.id, fieldId, {
      name: args.name,
      hint: args.hint,
      fieldData: args.field_data,
      displayInProfileSummary: args.display_in_profile_summary,
      required: args.required,
      editableByUser: args.editable_by_user,
    });
    return {};
  }

  @Delete(':field_id')
  @RequireRole('admin')
  async remove(@CurrentUser() auth: AuthContext, @Param('field_id', PathIntPipe) fieldId: number) {
    await this.fields.deleteField(auth.realm.id, fieldId);
    return {};
  }
}
