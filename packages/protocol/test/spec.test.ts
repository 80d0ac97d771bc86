// The published spec: the committed files are exactly what `pnpm spec` generates, the OpenAPI document holds
// together, and the normative prose covers every error code and every field of the wire messages.
import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { ERROR_CODES, ERROR_STATUS } from '../src/index.js';
import { finalNarration } from '../src/narration/narration.js';
import { joinNarration, maxHopsMessage } from '../src/server.js';
import { buildSpec, specFiles } from '../src/spec/build-spec.js';
import { fillGeneratedSections } from '../src/spec/doc-sections.js';
import { ERROR_CODE_DOCS } from '../src/spec/error-docs.js';
import { SCHEMA_BASE_URI } from '../src/spec/json-schema.js';
import { SPEC_MESSAGES, schemaFileName } from '../src/spec/messages.js';

const specDir = new URL('../../../spec/', import.meta.url);
const read = (path: string): string => readFileSync(new URL(path, specDir), 'utf8');
const stale = (path: string): string =>
  `spec/${path} is stale: run \`pnpm spec\` at the repository root and commit the result`;

describe('the committed spec is what `pnpm spec` generates', () => {
  const files = specFiles();

  for (const path of Object.keys(files)) {
    it(`spec/${path} equals its regeneration byte for byte`, () => {
      assert.ok(read(path) === files[path], stale(path));
    });
  }

  it('spec/schema holds no schema that is not generated any more', () => {
    const committed = readdirSync(new URL('schema/', specDir)).filter((name) => name.endsWith('.schema.json'));
    const extra = committed.filter((name) => !(`schema/${name}` in files));
    assert.deepEqual(extra, [], `left-over schema files: ${extra.join(', ')}; run \`pnpm spec\``);
  });

  it('the generated tables of spec/hop-protocol.md are current', () => {
    const doc = read('hop-protocol.md');
    assert.ok(fillGeneratedSections(doc) === doc, stale('hop-protocol.md (its generated tables)'));
  });

  it('builds the same bytes twice (deterministic)', () => {
    assert.deepEqual(specFiles(), specFiles(buildSpec()));
  });
});

describe('the generated JSON Schema files', () => {
  const { schemas } = buildSpec();

  it('has one file per top-level message, each with a stable $id, a title and a description', () => {
    assert.deepEqual(
      Object.keys(schemas),
      SPEC_MESSAGES.map((message) => schemaFileName(message.id)),
    );
    for (const message of SPEC_MESSAGES) {
      const file = schemaFileName(message.id);
      const schema = schemas[file]!;
      assert.equal(schema.$schema, 'https://json-schema.org/draft/2020-12/schema');
      assert.equal(schema.$id, `${SCHEMA_BASE_URI}${file}`);
      assert.equal(schema.title, message.id);
      assert.ok(typeof schema.description === 'string' && schema.description.length > 0, `${file} has no description`);
    }
  });

  it('makes defaulted request fields optional for the sender (io: input)', () => {
    const defs = schemas['hop-request.schema.json']!.$defs as Record<string, { required?: string[] }>;
    assert.deepEqual(defs.HopContext!.required, ['current_layout']);
  });

  it('keeps every response field a server always sends required (io: output)', () => {
    const defs = schemas['hop-response.schema.json']!.$defs as Record<string, { required?: string[] }>;
    assert.ok(defs.FinalHopResponse!.required!.includes('finish_reason'));
    assert.ok(defs.ContinuingHopResponse!.required!.includes('progress'));
  });
});

type Node = { [key: string]: unknown };

function* walk(value: unknown, path = '#'): Generator<[string, Node]> {
  if (value === null || typeof value !== 'object') return;
  if (!Array.isArray(value)) yield [path, value as Node];
  for (const [key, child] of Object.entries(value)) yield* walk(child, `${path}/${key}`);
}

function resolvePointer(document: Node, pointer: string): unknown {
  assert.ok(pointer.startsWith('#/'), `not a local reference: ${pointer}`);
  return pointer
    .slice(2)
    .split('/')
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<unknown>(
      (node, key) => (node !== null && typeof node === 'object' ? (node as Node)[key] : undefined),
      document,
    );
}

describe('spec/openapi.yaml', () => {
  const document = parse(read('openapi.yaml')) as Node;
  const paths = document.paths as Record<string, Record<string, Node>>;
  const operation = (path: string, method: string): Node => paths[path]![method]!;

  it('parses as OpenAPI 3.1', () => {
    assert.equal(document.openapi, '3.1.0');
    assert.equal((document.info as Node).version, 'canvas-ai/1');
  });

  it('references only component schemas and parameters that exist', () => {
    let count = 0;
    for (const [at, node] of walk(document)) {
      if (typeof node.$ref !== 'string') continue;
      count += 1;
      assert.ok(resolvePointer(document, node.$ref) !== undefined, `${at} references missing ${node.$ref}`);
    }
    assert.ok(count > 20);
  });

  it('publishes every component schema it defines (nothing unreferenced, nothing hand-written)', () => {
    const refs = new Set<string>();
    for (const [, node] of walk(document)) if (typeof node.$ref === 'string') refs.add(node.$ref);
    const components = Object.keys((document.components as Node).schemas as Node);
    for (const id of components)
      assert.ok(refs.has(`#/components/schemas/${id}`), `component ${id} is never referenced`);
    for (const message of SPEC_MESSAGES.filter((m) => m.api))
      assert.ok(components.includes(message.id), `${message.id} missing`);
  });

  it('has the operations of the protocol, the optional admin surface among them', () => {
    assert.deepEqual(Object.keys(paths).sort(), [
      '/api/admin/settings',
      '/api/agents',
      '/api/hop',
      '/api/hop/{request_id}',
      '/api/token',
      '/healthz',
    ]);
    assert.ok(operation('/api/hop', 'post'));
    assert.ok(operation('/api/hop/{request_id}', 'delete'));
    assert.ok(operation('/api/agents', 'get'));
    assert.ok(operation('/api/token', 'get'));
    assert.ok(operation('/healthz', 'get'));
    assert.ok(operation('/api/admin/settings', 'get'));
    assert.ok(operation('/api/admin/settings', 'put'));
  });

  it('accepts a hop as JSON or as multipart with a request part and attachment parts', () => {
    const content = (operation('/api/hop', 'post').requestBody as Node).content as Record<string, Node>;
    assert.deepEqual((content['application/json']!.schema as Node).$ref, '#/components/schemas/HopRequest');
    const multipart = content['multipart/form-data']!;
    const properties = (multipart.schema as Node).properties as Record<string, Node>;
    assert.equal(properties.request!.$ref, '#/components/schemas/HopRequest');
    assert.equal(properties.attachments!.type, 'array');
    assert.equal(((multipart.encoding as Node).request as Node).contentType, 'application/json');
  });

  it('asks for the X-CSRF-Token header on the hop and on cancel', () => {
    const parameter = ((document.components as Node).parameters as Node).CsrfToken as Node;
    assert.equal(parameter.name, 'X-CSRF-Token');
    assert.equal(parameter.in, 'header');
    for (const [path, method] of [
      ['/api/hop', 'post'],
      ['/api/hop/{request_id}', 'delete'],
    ] as const) {
      const refs = (operation(path, method).parameters as Node[]).map((p) => p.$ref);
      assert.ok(refs.includes('#/components/parameters/CsrfToken'), `${method} ${path} lacks the CSRF header`);
    }
  });

  it('answers every error code of an operation with its ERROR_STATUS and a HopErrorBody', () => {
    const names = {
      hop: ['/api/hop', 'post'],
      cancel: ['/api/hop/{request_id}', 'delete'],
      status: ['/api/hop/{request_id}', 'get'],
      agents: ['/api/agents', 'get'],
      token: ['/api/token', 'get'],
      health: ['/healthz', 'get'],
      admin: ['/api/admin/settings', 'put'],
    } as const;
    for (const code of ERROR_CODES) {
      for (const name of ERROR_CODE_DOCS[code].operations) {
        const [path, method] = names[name];
        const response = (operation(path, method).responses as Record<string, Node>)[String(ERROR_STATUS[code])];
        assert.ok(response, `${method} ${path} has no ${ERROR_STATUS[code]} response for ${code}`);
        const schema = ((response.content as Node)['application/json'] as Node).schema as { allOf: Node[] };
        assert.equal(schema.allOf[0]!.$ref, '#/components/schemas/HopErrorBody');
        assert.ok(
          JSON.stringify(schema.allOf[1]).includes(`"${code}"`),
          `${code} is not listed in ${method} ${path} ${ERROR_STATUS[code]}`,
        );
      }
    }
  });
});

describe('spec/hop-protocol.md', () => {
  const doc = read('hop-protocol.md');
  const { schemas } = buildSpec();

  it('names every error code', () => {
    const missing = ERROR_CODES.filter((code) => !doc.includes(`\`${code}\``));
    assert.deepEqual(missing, [], `hop-protocol.md does not mention ${missing.join(', ')}`);
  });

  it('names every field of every message on the wire', () => {
    const fields = new Set<string>();
    for (const message of SPEC_MESSAGES.filter((m) => m.api)) {
      for (const [, node] of walk(schemas[schemaFileName(message.id)])) {
        if (node.properties && typeof node.properties === 'object') {
          for (const key of Object.keys(node.properties)) fields.add(key);
        }
      }
    }
    assert.ok(fields.has('request_id') && fields.has('component_updates') && fields.has('issues'));
    const missing = [...fields].filter((field) => !doc.includes(`\`${field}\``));
    assert.deepEqual(missing, [], `hop-protocol.md does not mention ${missing.join(', ')}`);
  });

  it('links every generated schema file and the OpenAPI document', () => {
    for (const file of Object.keys(schemas)) assert.ok(doc.includes(`(schema/${file})`), `no link to schema/${file}`);
    assert.ok(doc.includes('(openapi.yaml)'));
  });

  it('gives the narration example exactly as joinNarration and finalNarration compute it', () => {
    const texts = ["I'll add a hero.", '  ', 'Next, the cards.', 'Done: hero and cards.'];
    const shown = (value: string): string => `\`${JSON.stringify(value)}\``;
    assert.ok(doc.includes(`${shown(joinNarration(texts.slice(0, 2)))} on hops 1 and 2`));
    assert.ok(doc.includes(`${shown(joinNarration(texts.slice(0, 3)))} on hop 3`));
    const last = finalNarration(texts);
    assert.equal(last.progress, joinNarration(texts.slice(0, 3)));
    assert.ok(doc.includes(shown(last.message)));
  });

  it('quotes the max_hops message word for word', () => {
    assert.ok(doc.includes(maxHopsMessage(7).replace('7', 'N')));
  });

  it('uses the RFC 2119 keywords it declares', () => {
    assert.ok(doc.includes('RFC 2119'));
    for (const word of ['MUST', 'MUST NOT', 'SHOULD', 'MAY']) assert.ok(doc.includes(word), `no ${word}`);
  });
});
