import { ParamErrors } from '../common/errors/param.errors';
import { badRequest } from '../common/errors/zulip-error';

/** Errors about organizations and their user-setting defaults. */
export const RealmErrors = {
  invalidRealm: () => badRequest('Invalid realm'),
  invalidStringId: () => ParamErrors.invalid('string_id'),
  invalidNotificationSound: (sound: string) => badRequest(`Invalid notification sound '${sound}'`),
  invalidLanguage: (language: string) => badRequest(`Invalid language '${language}'`),
  /** `methods` sorted, shown as Zulip shows a Python list. */
  invalidAuthenticationMethod: (name: string, methods: string[]) =>
    badRequest(
      `Invalid authentication method: ${name}. Valid methods are: [${methods.map((m) => `'${m}'`).join(', ')}]`,
    ),
  noAuthenticationMethod: () => badRequest('At least one authentication method must be enabled.'),
  invalidVideoChatProvider: (id: number) => badRequest(`Invalid video_chat_provider ${id}`),
  invalidGiphyRating: (id: number) => badRequest(`Invalid giphy_rating ${id}`),
  jitsiUrlNotAllowed: () => badRequest('jitsi_server_url is not an allowed_type'),
  mustBeDemoOrganization: () => badRequest('Must be a demo organization.'),
  invalidEmailBatchingPeriod: (seconds: number) => badRequest(`Invalid email batching period: ${seconds} seconds`),
};

/** Errors about custom profile fields (the realm's definitions; users' values use them too). */
export const CustomProfileFieldErrors = {
  fieldNotFound: (fieldId: number) => badRequest(`Field id ${fieldId} not found.`),
  invalidFieldType: () => badRequest('Invalid field type.'),
  /** A user's value of a list field. */
  invalidChoice: (value: string, name: string) => badRequest(`'${value}' is not a valid choice for '${name}'.`),
  labelInUse: () => badRequest('A field with that label already exists.'),
  labelBlank: () => badRequest('Label cannot be blank.'),
  /** check_required_string: `name` is a path in field_data. */
  blank: (name: string) => badRequest(`${name} cannot be blank.`),
  choiceValueBlank: () => CustomProfileFieldErrors.blank("'value'"),
  duplicateChoices: () => badRequest('Field must not have duplicate choices.'),
  noChoices: () => badRequest('Field must have at least one choice.'),
  urlPatternWithoutUsername: () => badRequest("URL pattern must contain '%(username)s'."),
  customExternalAccountWithoutUrlPattern: () => badRequest('Custom external account must define URL pattern'),
  invalidExternalAccountType: () => badRequest('Invalid external account type'),
  notSupportedInSummary: () => badRequest('Field type not supported for display in profile summary.'),
  tooManySummaryFields: (max: number) =>
    badRequest(`Only ${max} custom profile fields can be displayed in the profile summary.`),
  defaultFieldNotUpdatable: () => badRequest('Default custom field cannot be updated.'),
};
