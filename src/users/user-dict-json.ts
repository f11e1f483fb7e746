import { RawJson } from '../common/http/raw-json';
import {
  canSeeDeliveryEmail,
  EmailVisibility,
  userDict,
  type UserDictOptions,
  type UserDictSource,
} from './user-format';

const OPEN = Buffer.from('[');
const COMMA = Buffer.from(',');
const CLOSE_ARRAY = Buffer.from(']');
const CLOSE_DICT = Buffer.from('}');
const EMPTY_PROFILE = Buffer.from(',"profile_data":{}}');
const VISIBILITIES = Object.values(EmailVisibility);
/** Viewer classes × client_gravatar × host: a handful per realm; more means a bug, so start over. */
const MAX_VARIANTS = 16;

/** What decides a user dict besides the user: which addresses the viewer may see, and gravatars. */
interface Variant {
  viewerRole: number;
  realmHost: string;
  clientGravatar: boolean;
}

/**
 * Every user's dict of a realm as JSON, kept per copy of the realm's rows (RealmUserRowsCache
 * hands out the same frozen array until a change drops it, so a new array means new fragments and
 * nothing here needs invalidating). Each fragment is `JSON.stringify(userDict(...))` for a viewer
 * who is none of the users, without its closing brace: the request appends its `profile_data`
 * (read fresh) and the viewer's own dict is made apart (a user always sees their own address).
 * Which addresses a viewer sees depends only on their role, so viewers share fragments by the set
 * of email visibilities their role may see.
 */
export class UserDictJson {
  private readonly byRows = new WeakMap<readonly UserDictSource[], Map<string, Buffer[]>>();

  /**
   * The users of `rows` as JSON arrays, one per bucket (`bucketOf` gives each row's index, in
   * `buckets`), each in the rows' order; byte for byte `JSON.stringify` of the arrays of
   * `userDict(row, { viewer, realmHost, clientGravatar, profileData })`.
   */
  arrays(
    rows: readonly UserDictSource[],
    viewer: { id: number; role: number },
    variant: Variant,
    profiles: ReadonlyMap<number, NonNullable<UserDictOptions['profileData']>> | undefined,
    bucketOf: (row: UserDictSource) => number,
    buckets: number,
  ): RawJson[] {
    const fragments = this.fragments(rows, variant);
    const parts: Buffer[][] = Array.from({ length: buckets }, () => []);
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i];
      const out = parts[bucketOf(row)];
      out.push(out.length === 0 ? OPEN : COMMA);
      const profileData = profiles?.get(row.id);
      if (row.id === viewer.id) {
        const { realmHost, clientGravatar } = variant;
        const own = userDict(row, { viewer, realmHost, clientGravatar, profileData: profiles && (profileData ?? {}) });
        out.push(Buffer.from(JSON.stringify(own), 'utf8'));
        continue;
      }
      out.push(fragments[i]);
      if (!profiles) out.push(CLOSE_DICT);
      else if (profileData === undefined) out.push(EMPTY_PROFILE);
      else out.push(Buffer.from(`,"profile_data":${JSON.stringify(profileData)}}`, 'utf8'));
    }
    return parts.map((out) => new RawJson(out.length === 0 ? Buffer.from('[]') : Buffer.concat([...out, CLOSE_ARRAY])));
  }

  private fragments(rows: readonly UserDictSource[], variant: Variant): Buffer[] {
    const seen = VISIBILITIES.map((v) => (canSeeDeliveryEmail(variant.viewerRole, v) ? 1 : 0)).join('');
    const key = `${seen}|${variant.clientGravatar ? 1 : 0}|${variant.realmHost}`;
    let variants = this.byRows.get(rows);
    if (!variants) this.byRows.set(rows, (variants = new Map<string, Buffer[]>()));
    let fragments = variants.get(key);
    if (!fragments) {
      if (variants.size >= MAX_VARIANTS) variants.clear();
      // User ids are positive: viewer 0 is none of them, so only the role decides.
      const viewer = { id: 0, role: variant.viewerRole };
      fragments = rows.map((row) => {
        const json = JSON.stringify(
          userDict(row, { viewer, realmHost: variant.realmHost, clientGravatar: variant.clientGravatar }),
        );
        return Buffer.from(json.slice(0, -1), 'utf8');
      });
      variants.set(key, fragments);
    }
    return fragments;
  }
}
