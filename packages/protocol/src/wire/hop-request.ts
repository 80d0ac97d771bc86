import * as z from 'zod/mini';
import { withMeta } from './meta.js';
import { AgentId, ComponentUuid, PROTOCOL_VERSION, RequestId } from './ids.js';
import { JsonValue } from './json.js';
import { Layout, PageValues } from './layout.js';
import { ApplyResult } from './outputs.js';
import { LIMITS } from './limits.js';
import { boundedText } from './text.js';
import { WaitAnswer } from './waits.js';

/** One text message of the transcript. HTML progress messages are never sent. */
export const ChatMessage = withMeta(
  z.object({
    role: z.enum(['user', 'assistant']),
    text: boundedText(LIMITS.messageChars, `a message may have at most ${LIMITS.messageChars} characters`),
  }),
  { id: 'ChatMessage' },
);
export type ChatMessage = z.infer<typeof ChatMessage>;

/** The host's document at request time, rebuilt from its store on every hop (spec §5). */
export const HopContext = withMeta(
  z.object({
    current_layout: Layout,
    page: z._default(PageValues, {}),
    selected_component: z._default(z.nullable(ComponentUuid), null),
    extra: z._default(JsonValue, {}),
  }),
  { id: 'HopContext' },
);
export type HopContext = z.infer<typeof HopContext>;

/**
 * What the client handles beyond every v1 host (spec §5.1): `outputs` names output types such as `remove_components`
 * (revision 1.2), `waits` the kinds of wait it answers, such as `question` (revision 1.7, spec §20.1). Plain strings,
 * not enums: a name this server does not know is ignored (spec §7.1).
 */
export const Capabilities = withMeta(
  z.object({
    outputs: z._default(z.array(z.string().check(z.minLength(1), z.maxLength(100))).check(z.maxLength(50)), []),
    waits: z._default(z.array(z.string().check(z.minLength(1), z.maxLength(100))).check(z.maxLength(50)), []),
  }),
  { id: 'Capabilities' },
);
export type Capabilities = z.infer<typeof Capabilities>;

/** The protocol field every message carries. */
export const ProtocolField = z.literal(PROTOCOL_VERSION);

/**
 * One hop of a turn (spec §5). Unknown fields are ignored; wrong types and missing required fields are rejected.
 * `messages` is required on hop 1 (its last entry is the user's message) and ignored afterwards.
 */
export const HopRequest = withMeta(
  z
    .object({
      protocol: ProtocolField,
      request_id: RequestId,
      hop: z.int().check(z.minimum(1), z.maximum(LIMITS.maxHopNumber)),
      messages: z.optional(z.array(ChatMessage).check(z.maxLength(LIMITS.maxMessages))),
      agent: z.optional(AgentId),
      conversation_id: z.optional(RequestId),
      context: HopContext,
      apply_results: z.optional(z.array(ApplyResult).check(z.maxLength(LIMITS.maxOutputsPerHop))),
      /** Hop 1: the output types beyond the v1 three this client applies (spec §5.1); kept with the turn. */
      capabilities: z.optional(Capabilities),
      /**
       * The hop after a waiting one: the answer to what the turn waits for, by `kind` (spec §20): a question's
       * (revision 1.7), a screenshot's (revision 1.8, its image the hop's one attachment), a plan's (revision 1.8).
       */
      answer: z.optional(WaitAnswer),
    })
    .check(
      z.superRefine((request, ctx) => {
        if (request.hop !== 1) return;
        if (!request.messages || request.messages.length === 0) {
          ctx.addIssue({
            code: 'custom',
            path: ['messages'],
            message: 'messages is required on hop 1 and must not be empty',
          });
          return;
        }
        if (request.messages.at(-1)?.role !== 'user') {
          ctx.addIssue({
            code: 'custom',
            path: ['messages', request.messages.length - 1, 'role'],
            message: 'the last message of hop 1 must be the user message (role "user")',
          });
        }
      }),
    ),
  { id: 'HopRequest', description: 'One hop of a turn: one model decision.' },
);
export type HopRequest = z.infer<typeof HopRequest>;
/** A hop request as a client writes it, before defaults are filled in. */
export type HopRequestInput = z.input<typeof HopRequest>;

/** An image the user attached to hop 1 (multipart only). */
export interface Attachment {
  name: string;
  mediaType: AttachmentMediaType;
  bytes: Uint8Array;
}

/** The image types a server accepts as attachments; checked by magic bytes, not by the declared type. */
export const ATTACHMENT_MEDIA_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'image/gif'] as const;
export type AttachmentMediaType = (typeof ATTACHMENT_MEDIA_TYPES)[number];
