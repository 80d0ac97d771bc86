import { LIMITS } from '@canvas-ai/protocol';
import { defineCheck, fail, pass, type ConformanceCheck } from '../check.js';
import { describeAnswer } from '../http-client.js';
import { doorProbe } from '../requests.js';
import { describeProbe, expected, isError, passedTheDoor } from './door-answers.js';

const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const GIF = [...'GIF89a'].map((character) => character.charCodeAt(0));

/** A file of `size` bytes starting with `magic`. */
function file(magic: readonly number[], size: number): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(size);
  bytes.set(magic);
  return bytes;
}

/** Hop 1 as multipart: the kit's door probe as the `request` part, then each file as an `attachments` part. */
function form(label: string, files: Array<{ bytes: Uint8Array<ArrayBuffer>; type: string; name: string }>): FormData {
  const body = new FormData();
  body.append('request', JSON.stringify(doorProbe(label)));
  for (const { bytes, type, name } of files) body.append('attachments', new Blob([bytes], { type }), name);
  return body;
}

/**
 * Level 1, hop 1's attachments (spec §4.3) beyond what the malformed-request table can spell: the per-file size
 * limit, and the type told by the first bytes, never by the declared type or the name.
 */
export const attachmentChecks: ConformanceCheck[] = [
  defineCheck({
    id: 'attachments.too-large',
    level: 1,
    title: `An image of ${LIMITS.maxAttachmentBytes.toLocaleString('en-US')} bytes passes; one byte more gets 400 attachment_rejected naming attachments.0.`,
    spec: {
      section: 'attachments',
      must: 'A file over 5 MiB gets 400 `attachment_rejected` with `field` naming it (`attachments.N`).',
    },
    async run(context) {
      const field = 'attachments.0';
      const at = await context.client.postForm(
        form('attachment-size', [{ bytes: file(PNG, LIMITS.maxAttachmentBytes), type: 'image/png', name: 'at.png' }]),
      );
      const over = await context.client.postForm(
        form('attachment-size', [
          { bytes: file(PNG, LIMITS.maxAttachmentBytes + 1), type: 'image/png', name: 'big.png' },
        ]),
      );
      if (!isError(over, 400, 'attachment_rejected', field))
        return fail(
          `a PNG one byte over the limit ${describeProbe(over)}, expected ${expected(400, 'attachment_rejected', field)}`,
        );
      if (passedTheDoor(at)) return pass(`a PNG at the limit passed; one byte more got ${describeAnswer(over)}`);
      if (isError(at, 400, 'attachment_rejected', field))
        return pass('a PNG at the limit was refused too: the server is stricter than spec §13, which it may be');
      return fail(`a PNG at the limit ${describeProbe(at)}; expected it to pass the door`);
    },
  }),
  defineCheck({
    id: 'attachments.judged-by-bytes',
    level: 1,
    title: 'A GIF declared as image/png and a PNG declared as application/octet-stream pass: the first bytes decide.',
    spec: {
      section: 'attachments',
      must: 'The server MUST check every file by its first bytes, not by its declared type or name.',
    },
    async run(context) {
      const probes = [
        { bytes: file(GIF, 64), type: 'image/png', name: 'photo.png', what: 'a GIF declared image/png' },
        {
          bytes: file(PNG, 64),
          type: 'application/octet-stream',
          name: 'photo.bin',
          what: 'a PNG declared application/octet-stream',
        },
      ];
      for (const probe of probes) {
        const sent = await context.client.postForm(form('attachment-type', [probe]));
        if (!passedTheDoor(sent))
          return fail(`${probe.what} ${describeProbe(sent)}; expected it accepted by its bytes`);
      }
      return pass('both passed the door: the type comes from the first bytes');
    },
  }),
];
