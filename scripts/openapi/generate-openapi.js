#!/usr/bin/env node
// Generates src/openapi/openapi.json: the API document of exactly the operations this server
// serves. Zulip's operations (paths, parameters, responses, schemas) are copied from Zulip's
// OpenAPI document for every route the app declares; the routes Zulip does not document, and our
// own (health, metrics, served files), are described below. Run after changing routes:
//
//   npm run openapi:generate            (reads test/fixtures/zulip/openapi.json, Zulip's document without prose)
//   npm run openapi:generate -- path/to/zulip-openapi.yaml
//
// Only this script reads Zulip's document; the server and the tests read the generated file.
require('reflect-metadata');
const fs = require('node:fs');
const path = require('node:path');
const { parse } = require('yaml');
const prettier = require('prettier');

const root = path.join(__dirname, '..', '..');
const dist = path.join(root, 'dist', 'src');
const { AppModule } = require(path.join(dist, 'app.module'));
const { loadConfig } = require(path.join(dist, 'common', 'config', 'config'));
const { declaredRoutes, pathShape } = require(path.join(dist, 'openapi', 'nest-routes'));
const { API_FEATURE_LEVEL } = require(path.join(dist, 'common', 'version'));

const source = path.resolve(process.argv[2] ?? path.join(root, 'test', 'fixtures', 'zulip', 'openapi.json'));
const zulip = parse(fs.readFileSync(source, 'utf8'));
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));

const success = { $ref: '#/components/responses/SimpleSuccess' };
const error = {
  description: 'Error.',
  content: { 'application/json': { schema: { $ref: '#/components/schemas/CodedError' } } },
};
const form = (description) => ({
  required: false,
  content: {
    'application/x-www-form-urlencoded': {
      schema: { type: 'object', additionalProperties: true, description },
    },
  },
});
const file = (description) => ({
  200: { description, content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } } },
  404: error,
});
const health = {
  type: 'object',
  properties: {
    status: { type: 'string', enum: ['ok', 'error'] },
    info: { type: 'object', additionalProperties: { $ref: '#/components/schemas/HealthIndicator' } },
    error: { type: 'object', additionalProperties: { $ref: '#/components/schemas/HealthIndicator' } },
    details: { type: 'object', additionalProperties: { $ref: '#/components/schemas/HealthIndicator' } },
  },
  required: ['status'],
};

/** Operations this server serves that Zulip's document does not describe: key "method path". */
const OWN = {
  'get /health': {
    operationId: 'health',
    summary: 'Liveness',
    description: 'The process is up and serving HTTP. Always 200 while it runs; no credentials.',
    tags: ['server'],
    security: [],
    responses: {
      200: {
        description: 'Alive.',
        content: {
          'application/json': {
            schema: { type: 'object', properties: { status: { type: 'string', enum: ['ok'] } }, required: ['status'] },
          },
        },
      },
    },
  },
  'get /health/ready': {
    operationId: 'health-ready',
    summary: 'Readiness',
    description:
      'Ready to serve: PostgreSQL answers, Redis answers (when REDIS_URL is set) and the server is not shutting ' +
      'down (`server`). 503 otherwise, with the failing checks under `error`. For load balancers and health checks.',
    tags: ['server'],
    security: [],
    responses: {
      200: { description: 'Ready.', content: { 'application/json': { schema: health } } },
      503: { description: 'Not ready.', content: { 'application/json': { schema: health } } },
    },
  },
  'get /metrics': {
    operationId: 'metrics',
    summary: 'Prometheus metrics',
    description:
      'Metrics in the Prometheus text format. On the public port only with `Authorization: Bearer $METRICS_TOKEN` ' +
      '(or in development mode without a token); with METRICS_PORT set, served on that port instead and 404 here.',
    tags: ['server'],
    security: [{ metricsToken: [] }, {}],
    responses: {
      200: { description: 'The metrics.', content: { 'text/plain': { schema: { type: 'string' } } } },
      401: { description: 'Missing or wrong token.', content: { 'text/plain': { schema: { type: 'string' } } } },
      404: error,
    },
  },
  'get /static/generated/emoji/{name}': {
    operationId: 'server-emoji-data',
    summary: 'Emoji data',
    description:
      'The file `server_emoji_data_url` in `/register` names: `{"code_to_names": {code: [canonical name, aliases…]}}` for ' +
      'every Unicode emoji. `name` is the content-hashed `emoji_api.<hash>.json` (cached for a year) or ' +
      '`emoji_api.json` (revalidated with its ETag after an hour). No credentials.',
    tags: ['server'],
    security: [],
    parameters: [{ name: 'name', in: 'path', required: true, schema: { type: 'string' } }],
    responses: {
      200: {
        description: 'The emoji data.',
        content: {
          'application/json': {
            schema: {
              type: 'object',
              required: ['code_to_names'],
              properties: {
                code_to_names: { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } } },
              },
            },
          },
        },
      },
      304: { description: 'Not modified (If-None-Match matched the ETag).' },
      404: error,
    },
  },
  'get /api/v1/openapi.json': {
    operationId: 'openapi',
    summary: 'This document',
    description: "The operations this server implements, with Zulip's schemas, plus its own.",
    tags: ['server'],
    security: [],
    responses: {
      200: { description: 'OpenAPI 3.0 document.', content: { 'application/json': { schema: { type: 'object' } } } },
    },
  },
  'patch /api/v1/settings/display': {
    operationId: 'update-display-settings-legacy',
    summary: 'Update settings (legacy path)',
    description:
      'The path older clients use for display settings; Zulip serves it with `PATCH /settings`, and so do we.',
    tags: ['users'],
    requestBody: form('Any parameter of `PATCH /settings`.'),
    responses: { 200: success, 400: error },
  },
  'patch /api/v1/settings/notifications': {
    operationId: 'update-notification-settings-legacy',
    summary: 'Update settings (legacy path)',
    description:
      "The path older clients (and the Python client's `update_notification_settings`) use for notification " +
      'settings; Zulip serves it with `PATCH /settings`, and so do we.',
    tags: ['users'],
    requestBody: form('Any parameter of `PATCH /settings`.'),
    responses: { 200: success, 400: error },
  },
  'get /join/{key}': {
    operationId: 'invitation-registration-form',
    summary: 'Registration form of an invitation (web page)',
    description:
      'The link of an invitation email or a multiuse invitation link: an HTML form for a browser asking for the ' +
      'full name and password (and, for a multiuse link, the email address) of the new account.',
    tags: ['invites'],
    security: [],
    parameters: [{ name: 'key', in: 'path', required: true, schema: { type: 'string' } }],
    responses: {
      200: { description: 'The form.', content: { 'text/html': { schema: { type: 'string' } } } },
      400: {
        description: 'The organization is deactivated.',
        content: { 'text/html': { schema: { type: 'string' } } },
      },
      404: {
        description: 'Unknown, used, revoked or expired invitation.',
        content: { 'text/html': { schema: { type: 'string' } } },
      },
    },
  },
  'post /join/{key}': {
    operationId: 'invitation-register',
    summary: 'Accept an invitation (web page)',
    description:
      'Creates the account of an invitation with the invited role, channels and groups. Form fields ' +
      '`full_name`, `password` and, for a multiuse link, `email`. Answers an HTML page.',
    tags: ['invites'],
    security: [],
    parameters: [{ name: 'key', in: 'path', required: true, schema: { type: 'string' } }],
    requestBody: form('`full_name`, `password`, and `email` for a multiuse link.'),
    responses: {
      200: { description: 'Account created.', content: { 'text/html': { schema: { type: 'string' } } } },
      400: {
        description: 'Refused (the reason on the page).',
        content: { 'text/html': { schema: { type: 'string' } } },
      },
      404: {
        description: 'Unknown, used, revoked or expired invitation.',
        content: { 'text/html': { schema: { type: 'string' } } },
      },
    },
  },
  'get /accounts/confirm_new_email/{key}': {
    operationId: 'confirm-email-change',
    summary: 'Confirm an email change (web page)',
    description:
      'The link of the email sent to the new address after `PATCH /settings` with `email`: an HTML page for a ' +
      'browser. Changes the address once, within a day, if it is still free and changes are still allowed.',
    tags: ['users'],
    security: [],
    parameters: [{ name: 'key', in: 'path', required: true, schema: { type: 'string' } }],
    responses: {
      200: { description: 'Changed.', content: { 'text/html': { schema: { type: 'string' } } } },
      400: {
        description: 'Refused (the reason on the page).',
        content: { 'text/html': { schema: { type: 'string' } } },
      },
      404: { description: 'Unknown, used or expired link.', content: { 'text/html': { schema: { type: 'string' } } } },
    },
  },
  'get /accounts/unsubscribe/{email_type}/{token}': {
    operationId: 'email-unsubscribe',
    summary: 'Unsubscribe from notification emails (web page)',
    description:
      "The one-click link of missed-message emails (Zulip's `email_unsubscribe`): an HTML page for a browser. " +
      '`missed_messages` turns `enable_offline_email_notifications` off. The token is signed by the server; ' +
      'the link keeps working.',
    tags: ['users'],
    security: [],
    parameters: [
      { name: 'email_type', in: 'path', required: true, schema: { type: 'string' } },
      { name: 'token', in: 'path', required: true, schema: { type: 'string' } },
    ],
    responses: {
      200: { description: 'Unsubscribed.', content: { 'text/html': { schema: { type: 'string' } } } },
      404: { description: 'Unknown kind or invalid link.', content: { 'text/html': { schema: { type: 'string' } } } },
    },
  },
  'get /api/v1/bot_storage': {
    operationId: 'get-bot-storage',
    summary: 'Read bot storage',
    description:
      "Zulip's `GET /bot_storage` (not in Zulip's document; the Python client's `get_storage`): the values of " +
      '`keys` (a JSON list), or of every key. Bots only.',
    tags: ['bots'],
    parameters: [{ name: 'keys', in: 'query', required: false, schema: { type: 'string' } }],
    responses: {
      200: {
        description: 'The values.',
        content: {
          'application/json': {
            schema: {
              type: 'object',
              properties: {
                result: { type: 'string' },
                msg: { type: 'string' },
                storage: { type: 'object', additionalProperties: { type: 'string' } },
              },
            },
          },
        },
      },
      400: error,
    },
  },
  'put /api/v1/bot_storage': {
    operationId: 'update-bot-storage',
    summary: 'Write bot storage',
    description:
      "Zulip's `PUT /bot_storage` (the Python client's `update_storage`): `storage`, a JSON dict of strings, is " +
      'written all or nothing, within 10,000,000 characters of keys and values per bot. Bots only.',
    tags: ['bots'],
    requestBody: form('storage: a JSON object of string values.'),
    responses: { 200: success, 400: error },
  },
  'delete /api/v1/bot_storage': {
    operationId: 'remove-bot-storage',
    summary: 'Remove bot storage',
    description:
      "Zulip's `DELETE /bot_storage`: removes `keys` (a JSON list), or every key; nothing if one does not exist. Bots only.",
    tags: ['bots'],
    requestBody: form('keys: a JSON list of keys (optional).'),
    responses: { 200: success, 400: error },
  },
  'post /api/v1/submessage': {
    operationId: 'add-submessage',
    summary: 'Add a submessage to a widget message',
    description:
      "Zulip's `POST /submessage` (not in Zulip's document): `message_id` (JSON integer), `msg_type` " +
      '(`widget`) and `content`, a JSON string of at most 10,000 characters checked as the widget ' +
      '(poll or to-do list) expects. The message must be accessible and be a widget message; a ' +
      '`submessage` event goes to every user who has the message.',
    tags: ['messages'],
    requestBody: form('message_id, msg_type, content.'),
    responses: { 200: success, 400: error },
  },
  'patch /api/v1/realm': {
    operationId: 'update-realm',
    summary: 'Update organization settings',
    description:
      "Zulip's `PATCH /realm` (not in Zulip's document): the realm settings to change as form fields; " +
      'administrators only (owner-only settings need an owner).',
    tags: ['server_and_organizations'],
    requestBody: form(
      'Realm settings to change, e.g. name, description, default_language, and the *_policy and can_* settings.',
    ),
    responses: { 200: success, 400: error },
  },
  'patch /api/v1/realm/profile_fields/{field_id}': {
    operationId: 'update-custom-profile-field',
    summary: 'Update a custom profile field',
    description: "Zulip's `PATCH /realm/profile_fields/{field_id}` (not in Zulip's document); administrators only.",
    tags: ['server_and_organizations'],
    parameters: [{ name: 'field_id', in: 'path', required: true, schema: { type: 'integer' } }],
    requestBody: form('name, hint, field_data, display_in_profile_summary, required, editable_by_user.'),
    responses: { 200: success, 400: error },
  },
  'delete /api/v1/realm/profile_fields/{field_id}': {
    operationId: 'delete-custom-profile-field',
    summary: 'Delete a custom profile field',
    description: "Zulip's `DELETE /realm/profile_fields/{field_id}` (not in Zulip's document); administrators only.",
    tags: ['server_and_organizations'],
    parameters: [{ name: 'field_id', in: 'path', required: true, schema: { type: 'integer' } }],
    responses: { 200: success, 400: error },
  },
  'get /user_uploads/{realm_id_str}/{path}': {
    operationId: 'get-uploaded-file',
    summary: 'Download an uploaded file',
    description: 'The file itself, for a logged-in session or a valid signed URL; 404 when it is not accessible.',
    tags: ['users'],
    parameters: [
      { name: 'realm_id_str', in: 'path', required: true, schema: { type: 'string' } },
      {
        name: 'path',
        in: 'path',
        required: true,
        schema: { type: 'string' },
        description: 'random/name (may contain /)',
      },
    ],
    responses: file('The file.'),
  },
  'get /user_avatars/{realm_id}/emoji/images/{path}': {
    operationId: 'get-custom-emoji-image',
    summary: 'Download a custom emoji image',
    description:
      "A custom emoji's image (the `source_url` and `still_url` of `GET /realm/emoji`), public as Zulip's `/user_avatars/`.",
    tags: ['server_and_organizations'],
    security: [],
    parameters: [
      { name: 'realm_id', in: 'path', required: true, schema: { type: 'string' } },
      {
        name: 'path',
        in: 'path',
        required: true,
        schema: { type: 'string' },
        description: '`<file>` or `still/<file>.png`',
      },
    ],
    responses: file('The image.'),
  },
  'get /user_uploads/temporary/{token}/{filename}': {
    operationId: 'get-uploaded-file-temporary',
    summary: 'Download an uploaded file through a temporary URL',
    description: 'The URL `GET /api/v1/user_uploads/{realm_id_str}/{filename}` returns; valid for 60 seconds.',
    tags: ['users'],
    security: [],
    parameters: [
      { name: 'token', in: 'path', required: true, schema: { type: 'string' } },
      { name: 'filename', in: 'path', required: true, schema: { type: 'string' } },
    ],
    responses: file('The file.'),
  },
};

const OWN_COMPONENTS = {
  schemas: {
    HealthIndicator: {
      type: 'object',
      properties: { status: { type: 'string', enum: ['up', 'down'] }, message: { type: 'string' } },
      required: ['status'],
    },
  },
  securitySchemes: { metricsToken: { type: 'http', scheme: 'bearer', description: 'METRICS_TOKEN' } },
};

function main() {
  const config = loadConfig({ SECRET_KEY: 'x'.repeat(48), SERVER_MODE: 'development' });
  const routes = declaredRoutes(AppModule.forRoot(config, 'postgres://unused@localhost/unused'));
  const byShape = new Map();
  for (const [p, ops] of Object.entries(zulip.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      if (typeof op === 'object' && op && 'responses' in op)
        byShape.set(`${method} ${pathShape(`/api/v1${p}`)}`, [p, op]);
    }
  }
  const paths = {};
  const missing = [];
  for (const { method, path: served } of routes) {
    const own = OWN[`${method} ${served}`];
    const found = served.startsWith('/api/v1/') ? byShape.get(`${method} ${pathShape(served)}`) : undefined;
    let key;
    let op;
    if (own) [key, op] = [served, own];
    else if (found) [key, op] = [`/api/v1${found[0]}`, structuredClone(found[1])];
    else {
      missing.push(`${method.toUpperCase()} ${served}`);
      continue;
    }
    // Zulip's path-level parameters apply to the operation.
    const shared = found && zulip.paths[found[0]].parameters;
    if (shared && !own) op.parameters = [...shared, ...(op.parameters ?? [])];
    (paths[key] ??= {})[method] = op;
  }
  if (missing.length > 0) {
    console.error(`No description for these routes; add them to OWN in ${path.relative(root, __filename)}:`);
    for (const m of missing) console.error(`  ${m}`);
    process.exit(1);
  }
  for (const key of Object.keys(OWN)) {
    const [method, p] = key.split(' ');
    if (!paths[p]?.[method]) console.warn(`OWN entry ${key} is not served; remove it`);
  }

  // Components reachable from the operations (and from each other).
  const components = {};
  const pending = [paths];
  const seen = new Set();
  while (pending.length > 0) {
    const node = pending.pop();
    if (!node || typeof node !== 'object') continue;
    if (typeof node.$ref === 'string') {
      const [, , kind, name] = node.$ref.split('/');
      const id = `${kind}/${name}`;
      if (!seen.has(id)) {
        seen.add(id);
        const value = zulip.components[kind]?.[name] ?? OWN_COMPONENTS[kind]?.[name];
        if (value === undefined) throw new Error(`unresolved ${node.$ref}`);
        (components[kind] ??= {})[name] = value;
        pending.push(value);
      }
    }
    for (const v of Object.values(node)) if (v && typeof v === 'object') pending.push(v);
  }
  for (const [kind, entries] of Object.entries(OWN_COMPONENTS)) {
    for (const [name, value] of Object.entries(entries)) (components[kind] ??= {})[name] ??= value;
  }
  for (const [name, value] of Object.entries(zulip.components.securitySchemes ?? {})) {
    (components.securitySchemes ??= {})[name] ??= value;
  }
  const sorted = (o) => Object.fromEntries(Object.entries(o).sort(([a], [b]) => a.localeCompare(b)));
  for (const kind of Object.keys(components)) components[kind] = sorted(components[kind]);

  const document = {
    openapi: zulip.openapi,
    info: {
      title: 'zulip-ts-server API',
      version: pkg.version,
      description:
        `The part of Zulip's REST API this server implements (Zulip feature level ${API_FEATURE_LEVEL}), with ` +
        "Zulip's own descriptions and schemas, and the server's operational endpoints (/health, /metrics). " +
        'Generated by scripts/openapi/generate-openapi.js.',
      license: { name: pkg.license },
    },
    servers: [{ url: '/' }],
    security: zulip.security,
    paths: sorted(paths),
    components: sorted(components),
  };
  const out = path.join(root, 'src', 'openapi', 'openapi.json');
  return prettier
    .resolveConfig(out)
    .then((options) => prettier.format(JSON.stringify(document), { ...options, parser: 'json' }))
    .then((text) => {
      fs.writeFileSync(out, text);
      const operations = Object.values(paths).reduce((n, ops) => n + Object.keys(ops).length, 0);
      console.log(`${path.relative(root, out)}: ${operations} operations, ${seen.size} components`);
    });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
