import { stringify } from 'yaml';
import { messageSchema, type JsonSchema } from './json-schema.js';
import { SPEC_MESSAGES, schemaFileName } from './messages.js';
import { openApiDocument } from './openapi.js';

/** The generated spec documents, as data. */
export interface Spec {
  /** One JSON Schema per top-level message, by file name (`hop-request.schema.json`). */
  schemas: Record<string, JsonSchema>;
  /** The OpenAPI 3.1 document, as YAML text. */
  openapi: string;
}

/** Builds every generated spec document from the zod schemas. Pure: no file is read or written. */
export function buildSpec(): Spec {
  const schemas: Record<string, JsonSchema> = {};
  for (const message of SPEC_MESSAGES) schemas[schemaFileName(message.id)] = messageSchema(message);
  const header =
    '# Generated from the zod schemas of @canvas-ai/protocol by `pnpm spec`. Do not edit: change the schemas and regenerate.\n';
  const openapi = header + stringify(openApiDocument(SPEC_MESSAGES), { lineWidth: 0, aliasDuplicateObjects: false });
  return { schemas, openapi };
}

/** Every generated file's text by its path under spec/: 2-space JSON with a trailing newline, and the YAML. */
export function specFiles(spec: Spec = buildSpec()): Record<string, string> {
  const files: Record<string, string> = {};
  for (const [name, schema] of Object.entries(spec.schemas))
    files[`schema/${name}`] = `${JSON.stringify(schema, null, 2)}\n`;
  files['openapi.yaml'] = spec.openapi;
  return files;
}
