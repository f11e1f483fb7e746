import { RawJson } from '../common/http/raw-json';
import {
  canSeeDeliveryEmail,
  EmailVisibility,
  userDict,
  type UserDictOptions,
  type UserDictSource,
} from './user-format';

const VISIBILITIES = Object.values(EmailVisibility);
/** Viewer classes × options × host: a handful per realm; more means a bug, so start over. */
const MAX_VARIANTS = 16;

type ProfileData = NonNullable<UserDictOptions['profileData']>;

/** What decides a user dict besides the user and their profile data. */
export interface UserListVariant {
  /** Which addresses the viewer sees depends only on their role (their own dict is made apart). */
  viewerRole: number;
  realmHost: string;
  clientGravatar: boolean;
  includeCustomProfileFields: boolean;
  /** One array of every user, or two: active users, then deactivated ones (POST /register). */
  split: 'none' | 'activity';
}

/** One array's JSON for a viewer who is none of the users, with where each dict lies in it. */
interface SerialisedArray {
  bytes: Buffer;
  /** User ids in the array's order (ascending: rows come by id). */
  ids: Int32Array;
  /** Byte offsets of each dict: [start, end). */
  starts: Int32Array;
  ends: Int32Array;
}

/**
 * A realm's user list (realm_users, GET /users) serialised once per copy of the realm's rows and
 * variant, then sent to every viewer as views of that buffer: RealmUserRowsCache hands out the
 * same frozen array until a change drops it, so a new array means a new serialisation and nothing
 * here needs invalidating. The buffer holds every dict as a viewer who is none of the users sees
 * it (with `"profile_data":{}` when profile data is asked for); a request replaces, in place, the
 * viewer's own dict (a user always sees their own address) and the profile data of the users who
 * have some (read fresh per request): the pieces between are written as they are.
 */
export class UserDictJson {
  private readonly byRows = new WeakMap<readonly UserDictSource[], Map<string, SerialisedArray[]>>();

  /**
   * The arrays (one, or active and deactivated users), each byte for byte `JSON.stringify` of the
   * array of `userDict(row, { viewer, realmHost, clientGravatar, profileData })` over its rows.
   */
  arrays(
    rows: readonly UserDictSource[],
    viewer: { id: number; role: number },
    variant: UserListVariant,
    profiles: ReadonlyMap<number, ProfileData> | undefined,
  ): RawJson[] {
    const arrays = this.serialised(rows, variant);
    return arrays.map((array) => {
      const edits: Array<{ at: number; end: number; text: Buffer }> = [];
      const own = indexOf(array.ids, viewer.id);
      if (own >= 0) {
        const row = rows.find((r) => r.id === viewer.id)!;
        const profileData = variant.includeCustomProfileFields ? (profiles?.get(viewer.id) ?? {}) : undefined;
        const { realmHost, clientGravatar } = variant;
        const dict = userDict(row, { viewer, realmHost, clientGravatar, profileData });
        edits.push({ at: array.starts[own], end: array.ends[own], text: Buffer.from(JSON.stringify(dict), 'utf8') });
      }
      if (variant.includeCustomProfileFields && profiles) {
        for (const [userId, data] of profiles) {
          if (userId === viewer.id) continue;
          const i = indexOf(array.ids, userId);
          if (i < 0) continue;
          // The dict ends with `"profile_data":{}}`: its `{}` is replaced.
          const at = array.ends[i] - 3;
          edits.push({ at, end: at + 2, text: Buffer.from(JSON.stringify(data), 'utf8') });
        }
      }
      if (edits.length === 0) return new RawJson(array.bytes);
      edits.sort((a, b) => a.at - b.at);
      const parts: Buffer[] = [];
      let from = 0;
      for (const edit of edits) {
        parts.push(array.bytes.subarray(from, edit.at), edit.text);
        from = edit.end;
      }
      parts.push(array.bytes.subarray(from));
      return new RawJson(parts);
    });
  }

  private serialised(rows: readonly UserDictSource[], variant: UserListVariant): SerialisedArray[] {
    const seen = VISIBILITIES.map((v) => (canSeeDeliveryEmail(variant.viewerRole, v) ? 1 : 0)).join('');
    const key = [
      seen,
      variant.clientGravatar ? 1 : 0,
      variant.includeCustomProfileFields ? 1 : 0,
      variant.split,
      variant.realmHost,
    ].join('|');
    let variants = this.byRows.get(rows);
    if (!variants) this.byRows.set(rows, (variants = new Map<string, SerialisedArray[]>()));
    let arrays = variants.get(key);
    if (!arrays) {
      if (variants.size >= MAX_VARIANTS) variants.clear();
      arrays =
        variant.split === 'none'
          ? [serialise(rows, variant)]
          : [
              serialise(
                rows.filter((r) => r.isActive),
                variant,
              ),
              serialise(
                rows.filter((r) => !r.isActive),
                variant,
              ),
            ];
      variants.set(key, arrays);
    }
    return arrays;
  }
}

function serialise(rows: readonly UserDictSource[], variant: UserListVariant): SerialisedArray {
  // User ids are positive: viewer 0 is none of them, so only the role decides.
  const viewer = { id: 0, role: variant.viewerRole };
  const options = {
    viewer,
    realmHost: variant.realmHost,
    clientGravatar: variant.clientGravatar,
    profileData: variant.includeCustomProfileFields ? {} : undefined,
  };
  const texts: string[] = [];
  const ids = new Int32Array(rows.length);
  const starts = new Int32Array(rows.length);
  const ends = new Int32Array(rows.length);
  let offset = 1; // '['
  rows.forEach((row, i) => {
    if (i > 0) offset += 1; // ','
    const text = JSON.stringify(userDict(row, options));
    texts.push(text);
    ids[i] = row.id;
    starts[i] = offset;
    offset += Buffer.byteLength(text, 'utf8');
    ends[i] = offset;
  });
  return { bytes: Buffer.from(`[${texts.join(',')}]`, 'utf8'), ids, starts, ends };
}

/** Position of `id` in ascending `ids`, or -1. */
function indexOf(ids: Int32Array, id: number): number {
  let lo = 0;
  let hi = ids.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (ids[mid] === id) return mid;
    if (ids[mid] < id) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}
