import type { HopRequest } from '@canvas-ai/protocol';

/** A hop request ready for `fetch`: the body and the headers its transport needs. */
export interface SerializedHopRequest {
  body: string | FormData;
  headers: Record<string, string>;
}

/**
 * Serializes a built request for its transport (spec §4.1, §4.3): `multipart/form-data` with one `request` part (the
 * JSON) and one `attachments` part per file when there are files, else `application/json`. Only hop 1 (the user's
 * images) and the answer to a screenshot (its one image, spec §20.3) carry files. The multipart Content-Type is left to
 * the browser, which adds the boundary.
 */
export function serializeHopRequest(request: HopRequest, attachments: readonly Blob[] = []): SerializedHopRequest {
  const json = JSON.stringify(request);
  if (attachments.length === 0) {
    return { body: json, headers: { 'Content-Type': 'application/json', Accept: 'application/json' } };
  }
  const form = new FormData();
  form.append('request', json);
  attachments.forEach((file, index) => {
    form.append('attachments', file, fileName(file, index));
  });
  return { body: form, headers: { Accept: 'application/json' } };
}

function fileName(file: Blob, index: number): string {
  const name = (file as Partial<File>).name;
  return typeof name === 'string' && name.length > 0 ? name : `attachment-${index + 1}`;
}
