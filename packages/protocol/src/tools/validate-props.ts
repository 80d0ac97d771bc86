import type { CatalogComponent, PropDefinition, PropType } from '../config/catalog.js';
import type { JsonValue } from '../wire/json.js';
import type { Props } from '../wire/layout.js';
import { isMap, kindOf, listNames, quote } from './format.js';
import { didYouMean } from './suggest.js';

/** URL schemes a `url` or image `src` prop may use; anything else (javascript:, data:, …) is refused. */
const SAFE_URL_SCHEMES: ReadonlySet<string> = new Set(['http', 'https', 'mailto', 'tel']);

/** Where an image `src` may point (spec §12): the page's own origin (a relative path), or one of these origins. */
export interface ImageRules {
  imageOrigins: readonly string[];
}

/** The prop type as the model reads it in messages and details. */
function describePropType(type: PropType): string {
  switch (type) {
    case 'string':
      return 'a string';
    case 'text':
      return 'a text (a string, may span lines)';
    case 'url':
      return 'a url (a relative path like /menu, or http(s):, mailto:, tel:)';
    case 'number':
      return 'a number';
    case 'integer':
      return 'an integer';
    case 'boolean':
      return 'a boolean (true or false)';
    case 'image':
      return "an image {src, alt} (src a path on the page's own site, like /images/x.png, alt a string)";
  }
}

/** Why `text` is not an acceptable url, or undefined when it is. */
function urlProblem(text: string): string | undefined {
  if (text.trim() === '') return 'it is empty';
  if (/[\s\p{Cc}]/u.test(text)) return 'it contains spaces or control characters';
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(text)?.[1]?.toLowerCase();
  if (scheme !== undefined && !SAFE_URL_SCHEMES.has(scheme)) return `the scheme \`${scheme}:\` is not allowed`;
  return undefined;
}

/**
 * Why `src` may not be an image's source, or undefined when it may: an image is fetched the moment the page shows
 * it, with the page as referrer, so an off-site one is a channel out for whatever the model put in its URL. A path on
 * the page's own site is fine; an absolute URL only on an allowed origin; `//host`, `/\\host` and `https:host` are
 * other sites too.
 */
function imageSourceProblem(src: string, rules: ImageRules): string | undefined {
  const problem = urlProblem(src);
  if (problem) return problem;
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(src)?.[1]?.toLowerCase();
  const allowed = rules.imageOrigins.length > 0 ? ` or on ${listNames(rules.imageOrigins)}` : '';
  const why = `an image must be a path on the page's own site (like /images/hero.png)${allowed}`;
  if (scheme === undefined) {
    // `//host/x`, `\\host\x`, `/\host/x`: a browser reads each as another host.
    return /^[/\\]{2}/.test(src) ? `${why}; \`${src}\` is on another site` : undefined;
  }
  if (scheme !== 'http' && scheme !== 'https') return `${why}; \`${scheme}:\` is not an image address`;
  let origin: string;
  try {
    origin = new URL(src).origin;
  } catch {
    return `${why}; \`${src}\` is not a usable url`;
  }
  return rules.imageOrigins.includes(origin) ? undefined : `${why}; ${origin} is another site`;
}

/** Whether the value has the JS shape of the prop type; a reason when it has not. */
function typeProblem(type: PropType, value: unknown, rules: ImageRules): string | undefined {
  switch (type) {
    case 'string':
    case 'text':
      return typeof value === 'string' ? undefined : '';
    case 'url':
      if (typeof value !== 'string') return '';
      return urlProblem(value);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? undefined : '';
    case 'integer':
      return Number.isInteger(value) ? undefined : '';
    case 'boolean':
      return typeof value === 'boolean' ? undefined : '';
    case 'image': {
      if (!isMap(value)) return '';
      const extra = Object.keys(value).filter((key) => key !== 'src' && key !== 'alt');
      if (extra.length > 0) return `only src and alt are allowed, not ${listNames(extra)}`;
      if (typeof value.src !== 'string') return 'src must be a string';
      if (typeof value.alt !== 'string')
        return 'alt must be a string (describe the image; "" only if it is decorative)';
      const problem = imageSourceProblem(value.src, rules);
      return problem ? `src is not a usable image: ${problem}` : undefined;
    }
  }
}

/**
 * Checks one prop value against its definition: type, then enum. Returns a message naming the prop, the component
 * and what is allowed (e.g. "prop `theme` of sdc.demo.hero must be one of light, dark, brand; got 'blue'"),
 * or undefined when the value is fine.
 */
function checkPropValue(
  componentId: string,
  name: string,
  definition: PropDefinition,
  value: unknown,
  rules: ImageRules,
): string | undefined {
  const subject = `prop \`${name}\` of ${componentId}`;
  if (value === null) {
    return `${subject} must be ${describePropType(definition.type)}; got null (leave an optional prop out to keep it unset)`;
  }
  const problem = typeProblem(definition.type, value, rules);
  if (problem !== undefined) {
    const why = problem === '' ? `got ${quote(value)} (${kindOf(value)})` : `${problem}; got ${quote(value)}`;
    return `${subject} must be ${describePropType(definition.type)}; ${why}`;
  }
  if (definition.enum && !definition.enum.some((allowed) => allowed === value)) {
    return `${subject} must be one of ${definition.enum.map(String).join(', ')}; got ${quote(value)}`;
  }
  return undefined;
}

/** How {@link checkProps} treats props the model left out. */
export type PropsMode =
  /** A new component: required props must be given; omitted optional props with a default get it. */
  | 'place'
  /** An edit: only the given props are checked. */
  | 'edit';

/**
 * Checks a map of prop values against a catalog component and returns the props to use plus every problem found.
 * Unknown props are named with the closest known ones. `derived`: the props the edited node lists as derived; the
 * catalog's derived props are refused too (spec §10.1).
 */
export function checkProps(
  component: CatalogComponent,
  given: Record<string, unknown>,
  mode: PropsMode,
  rules: ImageRules,
  derived: readonly string[] = [],
): { props: Props; problems: string[] } {
  const problems: string[] = [];
  const checked: Props = {};
  const known = Object.keys(component.props);
  for (const [name, value] of Object.entries(given)) {
    const definition = Object.hasOwn(component.props, name) ? component.props[name] : undefined;
    if (definition?.derived || derived.includes(name)) {
      problems.push(
        `prop \`${name}\` of ${component.id} is computed by the page from its other props (derived): ` +
          `leave it out${mode === 'edit' ? '; change the props it is computed from instead' : ''}.`,
      );
      continue;
    }
    if (!definition) {
      problems.push(
        `${component.id} has no prop \`${name}\`${didYouMean(name, known) || '.'}` +
          (known.length ? ` Its props are: ${listNames(known)}.` : ' It has no props.'),
      );
      continue;
    }
    const problem = checkPropValue(component.id, name, definition, value, rules);
    if (problem) problems.push(problem);
    else checked[name] = value as JsonValue;
  }
  if (mode === 'edit') return { props: checked, problems };
  // A new component's props follow the catalog's order, so outputs read the same whatever order the model used.
  const props: Props = {};
  for (const [name, definition] of Object.entries(component.props)) {
    if (Object.hasOwn(checked, name)) props[name] = checked[name]!;
    else if (Object.hasOwn(given, name)) continue;
    else if (definition.required) {
      problems.push(`${component.id} is missing required prop \`${name}\` (${describePropType(definition.type)})`);
    } else if (definition.default !== undefined) {
      props[name] = structuredClone(definition.default);
    }
  }
  return { props, problems };
}
