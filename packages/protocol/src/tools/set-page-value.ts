import type { SetPageValueOutput } from '../wire/outputs.js';
import { fail, kindOf, quote } from './format.js';
import type { ToolDefinition } from './tool-definition.js';
import { SetPageValueInput } from './tool-inputs.js';

const NAME = 'set_page_value';

/** The longest page value accepted; page fields are titles and short descriptions. */
const MAX_PAGE_VALUE_CHARS = 5_000;

/**
 * `set_page_value` (spec §12): sets one page field (title, description, …). The field must be one the site configures
 * (`page_fields`), the value a string.
 */
export const setPageValueTool: ToolDefinition<SetPageValueInput> = {
  name: NAME,
  description: 'Set one page field, such as the page title or its meta description, to a string value.',
  input: SetPageValueInput,
  allowParallel: true,
  outputType: 'set_page_value',
  execute(input, context) {
    const field = context.pageFields.find((candidate) => candidate.name === input.field);
    if (!field) {
      const known = context.pageFields.map((candidate) => `${candidate.name} (${candidate.label})`);
      fail(
        NAME,
        `the page has no field \`${input.field}\`; ` +
          (known.length
            ? `the fields you can set are: ${known.join(', ')}`
            : 'no page fields are configured on this site'),
      );
    }
    if (typeof input.value !== 'string') {
      fail(NAME, `the value of \`${input.field}\` must be a string; got ${kindOf(input.value)} ${quote(input.value)}`);
    }
    const value = input.value;
    if (value.length > MAX_PAGE_VALUE_CHARS) {
      fail(
        NAME,
        `the value of \`${input.field}\` is ${value.length} characters; at most ${MAX_PAGE_VALUE_CHARS} are accepted`,
      );
    }
    const old = Object.hasOwn(context.document.page, input.field) ? context.document.page[input.field] : undefined;
    // What the host must still hold for the output to apply: a person's change meanwhile is kept (spec §16.2).
    const output: SetPageValueOutput = {
      type: NAME,
      call_id: context.callId,
      field: input.field,
      value,
      replaces: old ?? null,
    };
    const was = old === undefined ? ' (it was not set before)' : ` (it was ${quote(old)})`;
    return { output, result: `Set ${field.label} (\`${input.field}\`) to ${quote(value)}${was}.` };
  },
};
