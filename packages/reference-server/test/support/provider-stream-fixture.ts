import { readdir, readFile } from 'node:fs/promises';
import { parse } from 'yaml';
import * as z from 'zod';
import { FIXTURES_DIR } from '../../src/config.js';

const Usage = z.strictObject({
  input_tokens: z.int().min(0),
  output_tokens: z.int().min(0),
  cached_input_tokens: z.int().min(0),
});

/** One real server's stream shape (fixtures/provider-streams/README.md says what each field means). */
export const ProviderStreamFixture = z
  .strictObject({
    source: z.string().min(20),
    shape: z.string().min(10),
    refused_first: z.strictObject({ status: z.int().min(400).max(599), body: z.unknown() }).optional(),
    chunks: z
      .array(z.union([z.record(z.string(), z.unknown()), z.literal('[DONE]')]))
      .min(1)
      .optional(),
    completion: z.record(z.string(), z.unknown()).optional(),
    expect: z.union([
      z.strictObject({
        text: z.string(),
        tool_calls: z.array(z.strictObject({ id: z.string(), name: z.string(), arguments: z.string() })),
        usage: Usage.nullable(),
        resent_without: z.array(z.enum(['stream_options', 'parallel_tool_calls'])).optional(),
      }),
      z.strictObject({ error: z.string().min(5) }),
    ]),
  })
  .refine((fixture) => (fixture.chunks === undefined) !== (fixture.completion === undefined), {
    message: 'give chunks or a completion, one of them',
  });
export type ProviderStreamFixture = z.infer<typeof ProviderStreamFixture>;

/** Every fixture of fixtures/provider-streams/, by file name, validated (a bad file throws naming itself). */
export async function loadProviderStreams(): Promise<Array<{ file: string; fixture: ProviderStreamFixture }>> {
  const dir = `${FIXTURES_DIR}provider-streams/`;
  const files = (await readdir(dir)).filter((name) => name.endsWith('.yaml')).sort();
  return Promise.all(
    files.map(async (file) => {
      const parsed = ProviderStreamFixture.safeParse(parse(await readFile(`${dir}${file}`, 'utf8')));
      if (!parsed.success) throw new Error(`fixtures/provider-streams/${file}: ${z.prettifyError(parsed.error)}`);
      return { file, fixture: parsed.data };
    }),
  );
}
