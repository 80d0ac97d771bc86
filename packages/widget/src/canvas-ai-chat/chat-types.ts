/**
 * The types `<canvas-ai-chat>` shows a host of deep-chat, stated here so that the package's declarations import
 * none of deep-chat's: those fail to compile under a host's `skipLibCheck: false` (its files import each other
 * without extensions, and NodeNext resolution loses their `HTMLElement` base). The shapes follow deep-chat 2.4.2;
 * its documentation describes each option.
 */

/** A CSS declaration block as deep-chat takes it: property → value. */
export type ChatCss = { [property: string]: string | undefined };

/** A message as deep-chat holds it (`getMessages()`), and as `chatOptions.history` gives them. */
export interface ChatMessageContent {
  role?: string;
  text?: string;
  html?: string;
  files?: Array<{ src?: string; name?: string; type?: string; ref?: File }>;
  custom?: unknown;
}

/** The `<deep-chat>` element inside the chat: the methods a host may call (read-only use is the safe one). */
export interface DeepChatElement extends HTMLElement {
  getMessages(): ChatMessageContent[];
  scrollToBottom(): void;
  focusInput(): void;
}

/** deep-chat's text input options (`textInput`). */
export interface ChatTextInput {
  characterLimit?: number;
  disabled?: boolean;
  placeholder?: { text?: string; style?: ChatCss };
  styles?: { container?: ChatCss; text?: ChatCss; focus?: ChatCss };
}

/**
 * deep-chat options a host may pass through `chatOptions`: text input, attachments, styles and the like.
 * `connect` is not among them (the widget owns the connection), nor `remarkable`: deep-chat's markdown accepts every
 * link target, and its `html` option would render raw html in every text message. Options with a deep shape of
 * their own are typed as objects; deep-chat's documentation gives their fields.
 */
export interface ChatOptions {
  textInput?: ChatTextInput;
  defaultInput?: object;
  images?: boolean | object;
  camera?: boolean | object;
  mixedFiles?: boolean | object;
  dragAndDrop?: boolean | ChatCss;
  attachmentContainerStyle?: ChatCss;
  chatStyle?: ChatCss;
  messageStyles?: object;
  inputAreaStyle?: ChatCss;
  submitButtonStyles?: object;
  auxiliaryStyle?: string;
  dropupStyles?: object;
  introMessage?: ChatMessageContent | ChatMessageContent[];
  avatars?: boolean | object;
  names?: boolean | object;
  errorMessages?: { displayServiceErrorMessages?: boolean; overrides?: object };
  displayLoadingBubble?: boolean;
  upwardsMode?: boolean;
  scrollButton?: boolean | object;
  focusMode?: boolean | object;
  speechToText?: boolean | object;
  textToSpeech?: boolean | object;
  history?: ChatMessageContent[];
  validateInput?: (text?: string, files?: File[]) => boolean;
  requestBodyLimits?: { maxMessages?: number; totalMessagesMaxCharLength?: number };
}
