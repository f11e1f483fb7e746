import { IsArray, IsBoolean, IsInt, MaxLength } from 'class-validator';
import { Arg, OptionalArg } from '../../common/http/params';

/** POST /channel_folders/create */
export class CreateChannelFolderArgs {
  @Arg({ json: false })
  @MaxLength(1024)
  description: string;

  @Arg({ json: false })
  @MaxLength(60)
  name: string;
}

/** GET /channel_folders */
export class GetChannelFoldersArgs {
  @OptionalArg({ default: false })
  @IsBoolean()
  include_archived: boolean;
}

/** PATCH /channel_folders/{channel_folder_id} */
export class UpdateChannelFolderArgs {
  @OptionalArg({ json: false })
  @MaxLength(1024)
  description?: string;

  @OptionalArg()
  @IsBoolean()
  is_archived?: boolean;

  @OptionalArg({ json: false })
  @MaxLength(60)
  name?: string;
}

/** PATCH /channel_folders: every folder's id, in the new order. */
export class ReorderChannelFoldersArgs {
  @Arg()
  @IsArray()
  @IsInt({ each: true })
  order: number[];
}
