import { ATTACHMENT_MEDIA_TYPES } from '../wire/hop-request.js';
import { PROTOCOL_VERSION } from '../wire/ids.js';
import { ERROR_STATUS, type ErrorCode } from '../wire/errors.js';
import { LIMITS } from '../wire/limits.js';
import { ERROR_CODE_DOCS, type Operation } from './error-docs.js';
import { convert, rewriteRefs, sortKeys, type JsonSchema } from './json-schema.js';
import type { SpecMessage } from './messages.js';

const COMPONENTS = '#/components/schemas/';

/** A `$ref` to a component schema. */
const ref = (id: string): JsonSchema => ({ $ref: `${COMPONENTS}${id}` });

/**
 * The component schemas of the API messages, from the same zod schemas as the standalone files: every named
 * definition once. Should a schema ever differ between the request and the response direction (a default added
 * to a shared schema), the request-direction copy is published as `<Id>Input` instead of silently overwriting.
 */
function componentSchemas(messages: readonly SpecMessage[]): Record<string, JsonSchema> {
  const components: Record<string, JsonSchema> = {};
  const ordered = [...messages.filter((m) => m.io === 'output'), ...messages.filter((m) => m.io === 'input')];
  for (const message of ordered) {
    const { defs } = convert(message);
    // A definition is renamed when it differs from the published one, or uses one that is renamed.
    const renamed = new Map<string, string>();
    for (let changed = true; changed; ) {
      changed = false;
      for (const [id, def] of Object.entries(defs)) {
        const existing = components[id];
        if (existing === undefined || renamed.has(id)) continue;
        const differs = JSON.stringify(existing) !== JSON.stringify(localize(def, new Map()));
        if (differs || refsAny(def, renamed)) {
          renamed.set(id, `${id}Input`);
          changed = true;
        }
      }
    }
    for (const [id, def] of Object.entries(defs)) {
      components[renamed.get(id) ?? id] = localize(def, renamed);
    }
  }
  return sortKeys(components);
}

function refsAny(def: JsonSchema, renamed: ReadonlyMap<string, string>): boolean {
  let found = false;
  rewriteRefs(def, (target) => {
    if (renamed.has(target.slice('#/$defs/'.length))) found = true;
    return target;
  });
  return found;
}

function localize(def: JsonSchema, renamed: ReadonlyMap<string, string>): JsonSchema {
  return rewriteRefs(def, (target) => {
    if (!target.startsWith('#/$defs/')) return target;
    const id = target.slice('#/$defs/'.length);
    return `${COMPONENTS}${renamed.get(id) ?? id}`;
  }) as JsonSchema;
}

/** The error responses of one operation: one per HTTP status, each a HopErrorBody limited to that status's codes. */
function errorResponses(operation: Operation): Record<string, JsonSchema> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of Object.keys(ERROR_STATUS) as ErrorCode[]) {
    if (!ERROR_CODE_DOCS[code].operations.includes(operation)) continue;
    const status = ERROR_STATUS[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses: Record<string, JsonSchema> = {};
  for (const status of [...byStatus.keys()].sort((a, b) => a - b)) {
    const codes = byStatus.get(status)!;
    responses[String(status)] = {
      description: codes.map((code) => `\`${code}\`: ${ERROR_CODE_DOCS[code].when}`).join('\n\n'),
      content: {
        'application/json': {
          schema: {
            allOf: [ref('HopErrorBody'), { properties: { error: { properties: { code: { enum: codes } } } } }],
          },
        },
      },
    };
  }
  return responses;
}

const ok = (id: string, description: string): Record<string, JsonSchema> => ({
  '200': { description, content: { 'application/json': { schema: ref(id) } } },
});

const csrfHeader = { $ref: '#/components/parameters/CsrfToken' };

/** The OpenAPI 3.1 document of the protocol's HTTP API, as plain data. */
export function openApiDocument(messages: readonly SpecMessage[]): JsonSchema {
  const schemas = componentSchemas(messages.filter((message) => message.api));
  return {
    openapi: '3.1.0',
    info: {
      title: 'Canvas AI hop protocol',
      version: PROTOCOL_VERSION,
      summary: 'Let an AI agent edit a document that lives in the browser, one model decision per HTTP request.',
      description:
        'Generated from the zod schemas of @canvas-ai/protocol by `pnpm spec`; do not edit by hand. ' +
        'The normative text is spec/hop-protocol.md. Any other path answers 404 `not_found`, and a known path with ' +
        'another method 405 `method_not_allowed`, both with a HopErrorBody.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    paths: {
      '/api/hop': {
        post: {
          operationId: 'postHop',
          summary: 'Run one hop of a turn: execute the parked tool calls, then one model decision.',
          description:
            'Hop 1 MAY be multipart/form-data (one `request` part holding the HopRequest JSON, up to ' +
            `${LIMITS.maxAttachments} \`attachments\` image parts of at most ${LIMITS.maxAttachmentBytes} bytes each); ` +
            'every later hop is application/json. A hop repeated with the same request_id and hop returns the stored ' +
            'response; nothing executes twice.',
          parameters: [csrfHeader],
          requestBody: {
            required: true,
            content: {
              'application/json': { schema: ref('HopRequest') },
              'multipart/form-data': {
                schema: {
                  type: 'object',
                  required: ['request'],
                  properties: {
                    request: ref('HopRequest'),
                    attachments: {
                      type: 'array',
                      maxItems: LIMITS.maxAttachments,
                      items: { type: 'string', contentMediaType: 'application/octet-stream' },
                    },
                  },
                },
                encoding: {
                  request: { contentType: 'application/json' },
                  attachments: { contentType: ATTACHMENT_MEDIA_TYPES.join(', ') },
                },
              },
            },
          },
          responses: {
            '200': {
              description:
                'The hop ran (or was replayed). Apply `outputs`, then send hop + 1 while `should_continue`. ' +
                'Asked with `Accept: application/x-ndjson` (revision 1.4), a server may stream the answer: one ' +
                'HopStreamLine per line, the outputs before the model is called, the response (or error) last.',
              content: {
                'application/json': { schema: ref('HopResponse') },
                'application/x-ndjson': { schema: ref('HopStreamLine') },
              },
            },
            ...errorResponses('hop'),
          },
        },
      },
      '/api/hop/{request_id}': {
        get: {
          operationId: 'getTurnStatus',
          summary:
            "Where a turn of the caller's session stands (revision 1.2): waiting for its next hop, or finished with its " +
            'final response. Read-only: it takes no lock and changes nothing; no CSRF token needed.',
          parameters: [{ name: 'request_id', in: 'path', required: true, schema: ref('RequestId') }],
          responses: {
            ...ok(
              'TurnStatusResponse',
              '`state` `active`: send hop `hop + 1` (a repeat of `hop` gets its stored response); `finished`: the final response.',
            ),
            ...errorResponses('status'),
          },
        },
        delete: {
          operationId: 'cancelTurn',
          summary: 'Cancel a turn: its state is dropped and its parked calls never execute. Idempotent.',
          parameters: [{ name: 'request_id', in: 'path', required: true, schema: ref('RequestId') }, csrfHeader],
          responses: {
            ...ok(
              'CancelResponse',
              '`cancelled` is true when a turn was running, false when there was none (already over).',
            ),
            ...errorResponses('cancel'),
          },
        },
      },
      '/api/agents': {
        get: {
          operationId: 'getAgents',
          summary: 'The main agent and the agents a user may pick for one message.',
          responses: { ...ok('AgentsResponse', 'The agents.'), ...errorResponses('agents') },
        },
      },
      '/api/token': {
        get: {
          operationId: 'getToken',
          summary: 'A CSRF token bound to the session cookie, which the response sets when the caller has none.',
          responses: {
            '200': {
              description: 'The token; send it as the X-CSRF-Token header of every POST and DELETE.',
              headers: {
                'Set-Cookie': {
                  description: 'The session cookie, when the request had none.',
                  schema: { type: 'string' },
                },
              },
              content: { 'application/json': { schema: ref('TokenResponse') } },
            },
            ...errorResponses('token'),
          },
        },
      },
      '/api/admin/settings': {
        get: {
          operationId: 'getAdminSettings',
          summary:
            'Optional (spec §19): the settings in force and the canvas agents they may name. Only with the admin credential.',
          security: [{ AdminToken: [] }],
          responses: { ...ok('AdminSettingsResponse', 'The settings.'), ...errorResponses('admin') },
        },
        put: {
          operationId: 'putAdminSettings',
          summary:
            'Optional (spec §19): replaces the main agent and the tools; refused settings are a 400 with one issue per broken rule.',
          security: [{ AdminToken: [] }],
          requestBody: { required: true, content: { 'application/json': { schema: ref('AgentSettingsInput') } } },
          responses: { ...ok('AdminSettingsResponse', 'The settings now in force.'), ...errorResponses('admin') },
        },
      },
      '/healthz': {
        get: {
          operationId: 'getHealth',
          summary: 'Liveness: the server is up and speaks this protocol version.',
          responses: { ...ok('HealthResponse', 'Healthy.'), ...errorResponses('health') },
        },
      },
    },
    components: {
      securitySchemes: {
        AdminToken: {
          type: 'http',
          scheme: 'bearer',
          description:
            "The operator's admin token (the reference server: CANVAS_AI_ADMIN_TOKEN), never the session cookie.",
        },
      },
      parameters: {
        CsrfToken: {
          name: 'X-CSRF-Token',
          in: 'header',
          required: true,
          description: 'The token from GET /api/token, valid only with the session cookie it was issued for.',
          schema: { type: 'string', minLength: 1 },
        },
      },
      schemas,
    },
  };
}
