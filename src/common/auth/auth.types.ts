import type { Realm } from '../../realm/realm.entity';
import type { UserProfile } from '../../users/user.entity';

/** The authenticated caller, as guards attach it to the request. */
export interface AuthContext {
  user: UserProfile;
  realm: Realm;
}
