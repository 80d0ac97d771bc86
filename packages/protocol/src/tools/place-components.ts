import { applyOutputs, type CanvasDocument } from '../layout/apply-outputs.js';
import { LayoutError } from '../layout/layout-error.js';
import { countComponents } from '../layout/layout-tree.js';
import type { ComponentNode } from '../wire/layout.js';
import { LIMITS } from '../wire/limits.js';
import type { PlaceComponentsOutput, PlaceOperation } from '../wire/outputs.js';
import { buildNodes, parseComponentList, type ComponentSpec } from './component-spec.js';
import { plural, throwProblems } from './format.js';
import { checkPlacement } from './layout-checks.js';
import { ToolInputError, type ToolContext, type ToolDefinition } from './tool-definition.js';
import { PlaceComponentsInput } from './tool-inputs.js';
import { SuggestionBudget } from './uuid-suggestions.js';

const NAME = 'place_components';

/**
 * `place_components` (spec §12): places new components from the catalog. Every operation is checked against the catalog
 * and against the layout as the earlier operations of the same call leave it; the call is all or nothing. The server
 * assigns every uuid; the result tells the model each one and where it went.
 */
export const placeComponentsTool: ToolDefinition<PlaceComponentsInput> = {
  name: NAME,
  description:
    'Place new components from the catalog on the page. Each operation names a target (a region id such as ' +
    '"content", or "<parent_uuid>/<slot_name>"), a placement ("inside" an empty target, or "above"/"below" the ' +
    'component reference_uuid of that target) and `components`: a YAML list of single-key maps ' +
    '`component_id: {props: {...}, slots: {slot_name: [...]}}`. The result gives the uuid of every placed component.',
  input: PlaceComponentsInput,
  allowParallel: false,
  outputType: 'place_components',
  execute(input, context) {
    const problems: string[] = [];
    // Catalog checks first, for every operation: they need no layout, so the model hears all of them at once.
    const specs = input.operations.map((operation, index) =>
      parseComponentList(operation.components, context.catalog, `operations[${index}]`, problems),
    );
    throwProblems(NAME, problems);

    // The page after this call must still fit a request (spec §13): past the limit every later hop would be
    // refused until the user deleted components by hand.
    const placing = specs.reduce((sum, list) => sum + countSpecs(list), 0);
    const onPage = countComponents(context.document.layout);
    if (onPage + placing > LIMITS.maxLayoutComponents) {
      throw new ToolInputError(
        `${NAME} was not applied: the page has ${onPage} components and this call places ${placing}, but a page may ` +
          `hold at most ${LIMITS.maxLayoutComponents} (a larger one could not be sent to you again). ` +
          (onPage >= LIMITS.maxLayoutComponents
            ? 'Place nothing more; tell the user the page is full.'
            : `Place at most ${LIMITS.maxLayoutComponents - onPage} more.`),
      );
    }

    let document = context.document;
    const operations: PlaceOperation[] = [];
    const budget = new SuggestionBudget(context.suggestions);
    for (const [index, request] of input.operations.entries()) {
      const where = `operations[${index}]`;
      const opSpecs = specs[index]!;
      const layoutProblems = checkPlacement(
        document.layout,
        context.catalog,
        request,
        opSpecs.map((spec) => spec.component.id),
        where,
        budget,
      );
      if (layoutProblems.length > 0 && index < input.operations.length - 1) {
        // Later operations may depend on this one, so checking them against an unchanged layout would mislead.
        layoutProblems.push(`operations after operations[${index}] were not checked yet`);
      }
      throwProblems(NAME, layoutProblems);
      const operation = toOperation(request, opSpecs, context);
      document = applyOne(document, operation, context.callId, where);
      operations.push(operation);
    }

    const output: PlaceComponentsOutput = { type: NAME, call_id: context.callId, operations };
    return { output, result: describePlacement(operations) };
  },
};

/** Components in a list of specs, slot children included. */
function countSpecs(specs: readonly ComponentSpec[]): number {
  let count = 0;
  for (const spec of specs) {
    count += 1;
    for (const children of Object.values(spec.slots)) count += countSpecs(children);
  }
  return count;
}

function toOperation(
  request: PlaceComponentsInput['operations'][number],
  specs: readonly ComponentSpec[],
  context: ToolContext,
): PlaceOperation {
  const components = buildNodes(specs, context.newUuid);
  // `inside` ignores a reference, so the output does not carry one the browser would have to ignore too.
  return request.placement === 'inside'
    ? { target: request.target, placement: 'inside', components }
    : { target: request.target, placement: request.placement, reference_uuid: request.reference_uuid!, components };
}

/** The predicted document after one operation, computed by the shared reducer (never re-implemented here). */
function applyOne(document: CanvasDocument, operation: PlaceOperation, callId: string, where: string): CanvasDocument {
  try {
    return applyOutputs(document, [{ type: NAME, call_id: callId, operations: [operation] }]);
  } catch (error) {
    // The checks above should have caught it; a layout the checks did not foresee still gets a readable answer.
    // A duplicate uuid is the server's newUuid at fault, not the model: let it fail the hop.
    if (error instanceof LayoutError && error.code !== 'duplicate_uuid')
      throw new ToolInputError(`${NAME} was not applied: ${where}: ${error.message}`);
    throw error;
  }
}

/**
 * The result for the model: where each operation placed its components and every assigned uuid, in placed order.
 * Not the layout after it: the model was shown the page and hears of every change since, so a copy of the tree in
 * every result only made each prompt longer than the previous call's (bench/README.md, "Prompt cache").
 */
function describePlacement(operations: readonly PlaceOperation[]): string {
  const lines: string[] = [];
  let count = 0;
  const visit = (node: ComponentNode, depth: number, container: string, where: string): void => {
    count += 1;
    lines.push(`${'  '.repeat(depth)}- ${node.component}: ${node.uuid} (${where}${container})`);
    for (const [slot, children] of Object.entries(node.slots ?? {})) {
      for (const child of children) visit(child, depth + 1, `${node.uuid}/${slot}`, 'in ');
    }
  };
  for (const operation of operations) {
    const where = operation.placement === 'inside' ? 'in ' : `${operation.placement} ${operation.reference_uuid} in `;
    for (const node of operation.components) visit(node, 0, operation.target, where);
  }
  return [
    `Placed ${plural(count, 'component')}. Uuids assigned (use them as reference_uuid, or in targets like "<uuid>/<slot>"):`,
    ...lines,
  ].join('\n');
}
