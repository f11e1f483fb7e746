import { badRequest, ZulipError } from '../common/errors/zulip-error';

/** Errors about uploaded files and attachments. */
export const UploadErrors = {
  noFile: () => badRequest('You must specify a file to upload'),
  oneFileOnly: () => badRequest('You may only upload one file at a time'),
  fileTooLarge: (mib: number) =>
    badRequest(`File is larger than this server's configured maximum upload size (${mib} MiB).`),
  /** Zulip's RealmUploadQuotaError (check_upload_within_quota). */
  realmQuotaExceeded: () =>
    new ZulipError("Upload would exceed your organization's upload quota.", 'REALM_UPLOAD_QUOTA', 400),
  invalidToken: () => badRequest('Invalid token'),
  invalidFilename: () => badRequest('Invalid filename'),
  invalidAttachment: () => badRequest('Invalid attachment'),
  deleteFailed: () => badRequest('An error occurred while deleting the attachment. Please try again later.'),
};
