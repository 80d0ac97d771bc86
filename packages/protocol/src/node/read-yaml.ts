import { readFile } from 'node:fs/promises';
import { parse } from 'yaml';
import { z } from 'zod';
import { errorMessage } from '../wire/errors.js';

/** A fixture file that does not parse or does not match its schema; the message names the file and the key. */
export class FixtureError extends Error {
  override readonly name = 'FixtureError';
  /** The file, as it was given to the loader. */
  readonly file: string;

  constructor(file: string, message: string, options?: { cause?: unknown }) {
    super(`${file}: ${message}`, options);
    this.file = file;
  }
}

/** Reads a YAML file and validates it with `schema`; every problem is a {@link FixtureError} naming file and key. */
export async function readYamlFile<Schema extends z.core.$ZodType>(
  file: string,
  schema: Schema,
): Promise<z.infer<Schema>> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new FixtureError(file, `cannot be read (${errorMessage(error)})`, { cause: error });
  }
  let value: unknown;
  try {
    value = parse(text);
  } catch (error) {
    throw new FixtureError(file, `is not valid YAML: ${errorMessage(error)}`, { cause: error });
  }
  const parsed = z.safeParse(schema, value);
  if (!parsed.success) {
    const problems = parsed.error.issues
      .slice(0, 10)
      .map((issue) => `${issue.path.map(String).join('.') || '(top level)'}: ${issue.message}`);
    // One line per problem, each naming the file (spec §12.4: a refused config names every broken rule).
    throw new FixtureError(file, problems.join(`\n${file}: `));
  }
  return parsed.data;
}
