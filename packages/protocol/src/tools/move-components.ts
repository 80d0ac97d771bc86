import { applyOutputs, type CanvasDocument } from '../layout/apply-outputs.js';
import { LayoutError } from '../layout/layout-error.js';
import { type Located, locateAll, subtreeUuids } from '../layout/tree-edit.js';
import { parseTarget } from '../wire/layout.js';
import type { MoveComponentsOutput, MoveOperation } from '../wire/outputs.js';
import { plural, throwProblems } from './format.js';
import { checkPlacement, unknownUuidMessage } from './layout-checks.js';
import { ToolInputError, type ToolDefinition } from './tool-definition.js';
import { MoveComponentsInput, TOOL_INPUT_LIMITS } from './tool-inputs.js';
import { SuggestionBudget } from './uuid-suggestions.js';

const NAME = 'move_components';

/**
 * `move_components` (spec §12, revision 1.2): moves components already on the page; they keep their uuids, props and
 * slot children. Each operation is checked against the layout as the earlier ones leave it, without the components
 * it moves: every uuid is on the page, the target exists and its slot allows each component, a component does not go
 * into itself, `inside` only fills an empty target, and `reference_uuid` is in the target and not being moved. The
 * call is all or nothing. Offered only to a turn whose client declared the output (spec §5.1).
 */
export const moveComponentsTool: ToolDefinition<MoveComponentsInput> = {
  name: NAME,
  description:
    'Move components that are already on the page to another place: above or below a component of a region or ' +
    'slot, or into an empty one. They keep their uuids, props and the components inside them. Each operation names ' +
    'the uuids, a target (a region id such as "content", or "<parent_uuid>/<slot_name>"), a placement and, for ' +
    'above/below, reference_uuid.',
  input: MoveComponentsInput,
  allowParallel: true,
  outputType: NAME,
  execute(input, context) {
    const moving = input.operations.reduce((count, operation) => count + operation.uuids.length, 0);
    if (moving > TOOL_INPUT_LIMITS.movedPerCall) {
      throw new ToolInputError(
        `${NAME} was not applied: its operations list ${moving} components; one call moves at most ` +
          `${TOOL_INPUT_LIMITS.movedPerCall}. Move the others in your next call.`,
      );
    }
    let document = context.document;
    const operations: MoveOperation[] = [];
    const replaces: Record<string, string> = {};
    const lines: string[] = [];
    const budget = new SuggestionBudget(context.suggestions);
    for (const [index, request] of input.operations.entries()) {
      const where = `operations[${index}]`;
      // One walk of the page finds every component of the operation (spec §13.2).
      const located = locateAll(document.layout, request.uuids);
      const problems = checkMove(document, located, context.catalog, request, where, budget);
      if (problems.length > 0 && index < input.operations.length - 1)
        problems.push(`operations after ${where} were not checked yet`);
      throwProblems(NAME, problems);
      const operation: MoveOperation =
        request.placement === 'inside'
          ? { uuids: request.uuids, target: request.target, placement: 'inside' }
          : {
              uuids: request.uuids,
              target: request.target,
              placement: request.placement,
              reference_uuid: request.reference_uuid!,
            };
      for (const uuid of operation.uuids) {
        const from = located.get(uuid)!;
        // Where it was before this call, not before this operation: that is what the host must still hold.
        if (!Object.hasOwn(replaces, uuid)) replaces[uuid] = from.target;
        const next =
          operation.placement === 'inside'
            ? `into ${operation.target}`
            : `${operation.placement} ${operation.reference_uuid} in ${operation.target}`;
        lines.push(`- ${uuid} (${from.node.component}) from ${from.target} to ${next}`);
      }
      document = applyOne(document, operation, context.callId, where);
      operations.push(operation);
    }
    const output: MoveComponentsOutput = { type: NAME, call_id: context.callId, operations, replaces };
    const moved = operations.reduce((count, operation) => count + operation.uuids.length, 0);
    return {
      output,
      result: [`Moved ${plural(moved, 'component')} (their uuids stay the same):`, ...lines].join('\n'),
    };
  },
};

/** The problems of one move against the layout it applies to, each a sentence that says what to do instead. */
function checkMove(
  document: CanvasDocument,
  located: ReadonlyMap<string, Located>,
  catalog: Parameters<typeof checkPlacement>[1],
  request: MoveComponentsInput['operations'][number],
  where: string,
  budget: SuggestionBudget,
): string[] {
  const layout = document.layout;
  const problems: string[] = [];
  const seen = new Set<string>();
  const ids: string[] = [];
  request.uuids.forEach((uuid, at) => {
    if (seen.has(uuid)) {
      problems.push(`${where}.uuids[${at}]: ${uuid} is listed twice; list each component once`);
      return;
    }
    seen.add(uuid);
    const found = located.get(uuid);
    if (!found) {
      problems.push(`${where}.uuids[${at}]: ${unknownUuidMessage(layout, uuid, budget)}`);
      return;
    }
    ids.push(found.node.component);
    const target = parseTarget(request.target);
    if (target.kind === 'slot' && subtreeUuids(found.node).includes(target.parentUuid)) {
      const self = target.parentUuid === uuid ? 'its own slot' : `a slot of ${target.parentUuid}, which is inside it`;
      problems.push(
        `${where}: ${uuid} cannot move into \`${request.target}\`, ${self}; a component cannot go into itself. ` +
          'Pick a target outside it.',
      );
    }
  });
  if (request.reference_uuid !== undefined && seen.has(request.reference_uuid)) {
    problems.push(
      `${where}: reference_uuid \`${request.reference_uuid}\` is one of the components being moved; use a component ` +
        'of the target that stays where it is',
    );
  }
  if (problems.length > 0) return problems;
  // The target, its slot's allowed components and the reference, on the layout without what moves.
  const without = applyOutputs(document, [{ type: 'remove_components', call_id: 'check', uuids: request.uuids }]);
  return checkPlacement(without.layout, catalog, request, ids, where, budget);
}

/** The predicted document after one move, by the shared reducer; what the checks missed is a readable error. */
function applyOne(document: CanvasDocument, operation: MoveOperation, callId: string, where: string): CanvasDocument {
  try {
    return applyOutputs(document, [{ type: NAME, call_id: callId, operations: [operation] }]);
  } catch (error) {
    if (error instanceof LayoutError) throw new ToolInputError(`${NAME} was not applied: ${where}: ${error.message}`);
    throw error;
  }
}
