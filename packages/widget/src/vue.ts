// @canvas-ai/widget/vue: the types of <canvas-ai-chat> in Vue templates (vue-tsc, Volar), types only (nothing runs).
// A host opts in with one line, `import type {} from '@canvas-ai/widget/vue';`, registers the element with
// `import '@canvas-ai/widget/define';`, and tells Vue's compiler the tag is a custom element (`isCustomElement`).
// The shape is the one Vue's guide gives for custom elements not built with Vue ("Non-Vue Web Components and
// TypeScript"): a component type in `GlobalComponents` whose `$props` and `$emit` exist for the template only.
import type { EmitFn, HTMLAttributes, PublicProps } from 'vue';
import type { CanvasAiChat } from './canvas-ai-chat/canvas-ai-chat.component.js';
import type { CanvasAiChatListeners, CanvasAiChatProperties } from './canvas-ai-chat/element-props.js';

/** `<canvas-ai-chat>` as Vue's template type-check sees it; a template ref to it is the element itself. */
export type CanvasAiChatVueComponent = new () => CanvasAiChat & {
  /** @deprecated For template type-checking only: the element has no `$props`. */
  $props: HTMLAttributes & CanvasAiChatProperties & PublicProps;
  /** @deprecated For template type-checking only: the element has no `$emit`. */
  $emit: EmitFn<CanvasAiChatListeners>;
};

declare module 'vue' {
  interface GlobalComponents {
    'canvas-ai-chat': CanvasAiChatVueComponent;
  }
}
