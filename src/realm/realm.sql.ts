/**
 * SQL that other modules compose into their own single statements (docs/DEVELOPING.md, "Tables and
 * their owners"): realm owns custom_profile_field, so only realm writes SQL naming it. Users joins
 * a value to its field (type, order) when reading profile values. The column list is the API;
 * PostgreSQL inlines the subquery.
 */

/** Custom profile fields: `JOIN ${customProfileFieldsView} f ON f.id = v.field_id`. */
export const customProfileFieldsView = `(SELECT id, realm_id, field_type, "order" FROM custom_profile_field)`;

/** Realms' identity: `JOIN ${realmsView} r ON r.id = u.realm_id` (a sender's realm string). */
export const realmsView = `(SELECT id, string_id FROM realm)`;
