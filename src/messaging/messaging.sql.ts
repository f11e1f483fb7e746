/**
 * SQL that other modules compose into their own single statements (docs/DEVELOPING.md, "Tables and
 * their owners"): messaging owns message, so only messaging writes SQL naming it. Uploads joins
 * the messages that link an attachment (its publicity, its dict's `messages`) in one statement.
 * The column list is the API; PostgreSQL inlines the subquery.
 */

/** Messages: `JOIN ${messagesView} m ON m.id = am.message_id`. */
export const messagesView = `(SELECT id, realm_id, recipient_id, sender_id, is_channel_message, date_sent FROM message)`;
