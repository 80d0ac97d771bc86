// @canvas-ai/widget/react: the JSX types of <canvas-ai-chat> for React 19, types only (nothing runs). A host opts in
// with one line anywhere in its program, `import type {} from '@canvas-ai/widget/react';`, and registers the element
// with `import '@canvas-ai/widget/define';` as usual. React 19 sets a prop the element has as a property (functions
// and objects included), any other as an attribute, and an `on<event name>` prop as a listener of that event.
import type { DetailedHTMLProps, HTMLAttributes } from 'react';
import type { CanvasAiChat } from './canvas-ai-chat/canvas-ai-chat.component.js';
import type {
  CanvasAiChatAttributes,
  CanvasAiChatListeners,
  CanvasAiChatProperties,
} from './canvas-ai-chat/element-props.js';

/** Listeners of the element's events: `oncanvas-ai-turn-end={(event) => …}`, the event typed. */
export type CanvasAiChatReactListeners = {
  [K in keyof CanvasAiChatListeners as `on${K}`]?: CanvasAiChatListeners[K] | undefined;
};

/** The props of `<canvas-ai-chat>` in React 19 JSX: HTML's, `ref`, the element's properties and attributes, its events. */
export type CanvasAiChatReactProps = DetailedHTMLProps<HTMLAttributes<CanvasAiChat>, CanvasAiChat> &
  CanvasAiChatProperties &
  CanvasAiChatAttributes &
  CanvasAiChatReactListeners;

declare module 'react' {
  namespace JSX {
    interface IntrinsicElements {
      'canvas-ai-chat': CanvasAiChatReactProps;
    }
  }
}
