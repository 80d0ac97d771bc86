import type { z } from 'zod';
import { AgentsConfig } from '../config/agents-config.js';
import { AdminSettingsResponse, AgentSettings } from '../wire/admin.js';
import { Catalog } from '../config/catalog.js';
import { Scenario } from '../scenario/scenario.js';
import {
  AskQuestionInput,
  RequestScreenshotInput,
  ProposePlanInput,
  EditComponentsInput,
  GetComponentDetailsInput,
  MoveComponentsInput,
  PlaceComponentsInput,
  RemoveComponentsInput,
  SetPageValueInput,
} from '../tools/tool-inputs.js';
import { AgentsResponse } from '../wire/agents.js';
import { HopErrorBody } from '../wire/errors.js';
import { HopRequest } from '../wire/hop-request.js';
import { HopStreamLine } from '../wire/hop-stream.js';
import {
  CancelResponse,
  HealthResponse,
  HopResponse,
  TokenResponse,
  TurnStatusResponse,
} from '../wire/hop-response.js';
import { Layout } from '../wire/layout.js';
import { ApplyResult, ToolOutput } from '../wire/outputs.js';

/** One top-level message of the published spec: a file of its own under spec/schema/. */
export interface SpecMessage {
  /** The schema's registry id (its `.meta({ id })`), also the OpenAPI component name. */
  id: string;
  schema: z.core.$ZodType;
  /**
   * `input` for what a person or client writes (defaults make those fields optional for the writer),
   * `output` for what a server sends (every defaulted field is present).
   */
  io: 'input' | 'output';
  /** Used when the schema's own metadata has no description. */
  description?: string;
  /** Whether the HTTP API carries it (it becomes an OpenAPI component). */
  api: boolean;
}

/** The top-level messages, in the order the spec lists them. */
export const SPEC_MESSAGES: readonly SpecMessage[] = [
  { id: 'HopRequest', schema: HopRequest, io: 'input', api: true },
  { id: 'HopResponse', schema: HopResponse, io: 'output', api: true },
  { id: 'HopErrorBody', schema: HopErrorBody, io: 'output', api: true },
  { id: 'HopStreamLine', schema: HopStreamLine, io: 'output', api: true },
  {
    id: 'ToolOutput',
    schema: ToolOutput,
    io: 'output',
    api: false,
    description: 'A structured tool output the browser applies to its document, discriminated by `type`.',
  },
  {
    id: 'ApplyResult',
    schema: ApplyResult,
    io: 'input',
    api: false,
    description: 'What the host did with one output of the previous response; sent in the next request.',
  },
  { id: 'Layout', schema: Layout, io: 'input', api: false },
  { id: 'AgentsResponse', schema: AgentsResponse, io: 'output', api: true },
  { id: 'AgentSettings', schema: AgentSettings, io: 'input', api: true },
  { id: 'AdminSettingsResponse', schema: AdminSettingsResponse, io: 'output', api: true },
  {
    id: 'TokenResponse',
    schema: TokenResponse,
    io: 'output',
    api: true,
    description: 'The response to GET /api/token: the CSRF token to send as the X-CSRF-Token header.',
  },
  {
    id: 'CancelResponse',
    schema: CancelResponse,
    io: 'output',
    api: true,
    description: 'The response to DELETE /api/hop/{request_id}; `cancelled` says whether a turn was running.',
  },
  {
    id: 'TurnStatusResponse',
    schema: TurnStatusResponse,
    io: 'output',
    api: true,
  },
  {
    id: 'HealthResponse',
    schema: HealthResponse,
    io: 'output',
    api: true,
    description: 'The response to GET /healthz.',
  },
  { id: 'Catalog', schema: Catalog, io: 'input', api: false },
  { id: 'AgentsConfig', schema: AgentsConfig, io: 'input', api: false },
  { id: 'Scenario', schema: Scenario, io: 'input', api: false },
  {
    id: 'PlaceComponentsInput',
    schema: PlaceComponentsInput,
    io: 'input',
    api: false,
    description: 'The arguments a model sends to the place_components tool.',
  },
  {
    id: 'EditComponentsInput',
    schema: EditComponentsInput,
    io: 'input',
    api: false,
    description: 'The arguments a model sends to the edit_components tool.',
  },
  {
    id: 'SetPageValueInput',
    schema: SetPageValueInput,
    io: 'input',
    api: false,
    description: 'The arguments a model sends to the set_page_value tool.',
  },
  {
    id: 'RemoveComponentsInput',
    schema: RemoveComponentsInput,
    io: 'input',
    api: false,
    description: 'The arguments a model sends to the remove_components tool (revision 1.2).',
  },
  {
    id: 'MoveComponentsInput',
    schema: MoveComponentsInput,
    io: 'input',
    api: false,
    description: 'The arguments a model sends to the move_components tool (revision 1.2).',
  },
  {
    id: 'GetComponentDetailsInput',
    schema: GetComponentDetailsInput,
    io: 'input',
    api: false,
    description: 'The arguments a model sends to the get_component_details tool.',
  },
  {
    id: 'AskQuestionInput',
    schema: AskQuestionInput,
    io: 'input',
    api: false,
    description: 'The arguments a model sends to the ask_question tool (revision 1.7).',
  },
  {
    id: 'RequestScreenshotInput',
    schema: RequestScreenshotInput,
    io: 'input',
    api: false,
    description: 'The arguments a model sends to the request_screenshot tool (revision 1.8).',
  },
  {
    id: 'ProposePlanInput',
    schema: ProposePlanInput,
    io: 'input',
    api: false,
    description: 'The arguments a model sends to the propose_plan tool (revision 1.8).',
  },
];

/** The file name of a message's schema: `HopRequest` → `hop-request.schema.json`. */
export function schemaFileName(id: string): string {
  return `${id.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase()}.schema.json`;
}
