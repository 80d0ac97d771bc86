// The mapping both ways: Puck's data ↔ the protocol's document. Puck's `content` is the `content` region, each item's
// `props.id` (Puck's own id, e.g. `Hero-<uuid>`) is the component's uuid, and the root's props are the page values.
// The props Puck computes (its resolveData) are listed as the node's `derived` (spec §10.1).
import type { CanvasDocument, ComponentNode, JsonValue } from '@canvas-ai/protocol';
import type { Data } from '@puckeditor/core';
import { computeProps, DERIVED } from './puck-config.js';

/** Puck → protocol: the page as the agent sees it. */
export function toDocument(data: Data): CanvasDocument {
  const components: ComponentNode[] = data.content.map(({ type, props }) => {
    const { id, ...rest } = props as Record<string, JsonValue> & { id: string };
    const derived = DERIVED[String(type)];
    return { uuid: id, component: String(type), props: rest, ...(derived ? { derived: [...derived] } : {}) };
  });
  const page: Record<string, JsonValue> = {};
  for (const [name, value] of Object.entries(data.root.props ?? {})) if (value !== '') page[name] = value as JsonValue;
  return { layout: { regions: { content: { components } } }, page };
}

/**
 * Protocol → Puck: `data` with the document's components and page values. An item whose props did not change is
 * kept as it was (the same object), so Puck re-renders only what the agent changed.
 */
export function toData(document: CanvasDocument, data: Data): Data {
  const before = new Map(data.content.map((item) => [String(item.props.id), item]));
  const content = (document.layout.regions.content?.components ?? []).map((node) => {
    const kept = before.get(node.uuid);
    const props = { ...node.props, ...computeProps(node.component, node.props), id: node.uuid };
    const same = kept?.type === node.component && JSON.stringify(kept.props) === JSON.stringify(props);
    return same ? kept : { type: node.component, props };
  });
  const root = { ...data.root, props: { ...blankPage(data.root.props), ...document.page } };
  return { ...data, content, root };
}

/** The root's props with every value cleared: a page value the document no longer has is empty again. */
function blankPage(props: Record<string, unknown> | undefined): Record<string, string> {
  return Object.fromEntries(Object.keys(props ?? {}).map((name) => [name, '']));
}
