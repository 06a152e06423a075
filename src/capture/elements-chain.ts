import { textOf } from '../util/text.js';

/**
 * PostHog's elements_chain text for autocapture: one entry per element, innermost first,
 * separated by ';'. An entry is `tag.class1.class2:attr="v"…` with href, nth-child,
 * nth-of-type, text and attr_id, as posthog-js's `$elements` describe them.
 */
interface ElementInput {
  tag_name?: unknown;
  $el_text?: unknown;
  text?: unknown;
  attr__class?: unknown;
  classes?: unknown;
  attr__href?: unknown;
  href?: unknown;
  attr__id?: unknown;
  attr_id?: unknown;
  nth_child?: unknown;
  nth_of_type?: unknown;
  [attribute: string]: unknown;
}

function escapeQuoted(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"');
}

function classesOf(element: ElementInput): string[] {
  const raw = element.classes ?? element.attr__class;
  if (Array.isArray(raw)) return raw.map(textOf).filter(Boolean);
  if (typeof raw === 'string') return raw.split(/\s+/).filter(Boolean);
  return [];
}

function elementToString(element: ElementInput): string {
  const tag = typeof element.tag_name === 'string' ? element.tag_name : '';
  const classes = classesOf(element)
    .map((name) => name.replace(/"/g, ''))
    .sort();
  let entry = tag + (classes.length > 0 ? `.${classes.join('.')}` : '');
  const attributes: [string, unknown][] = [];
  const text = element.$el_text ?? element.text;
  if (typeof text === 'string' && text !== '') attributes.push(['text', text]);
  const href = element.attr__href ?? element.href;
  if (typeof href === 'string' && href !== '') attributes.push(['href', href.slice(0, 2048)]);
  if (element.nth_child !== undefined && element.nth_child !== null) attributes.push(['nth-child', element.nth_child]);
  if (element.nth_of_type !== undefined && element.nth_of_type !== null) attributes.push(['nth-of-type', element.nth_of_type]);
  const id = element.attr__id ?? element.attr_id;
  if (typeof id === 'string' && id !== '') attributes.push(['attr_id', id]);
  for (const [key, value] of Object.entries(element)) {
    if (key.startsWith('attr__') && value !== undefined && value !== null) attributes.push([key, value]);
  }
  attributes.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (attributes.length > 0) {
    entry += `:${attributes.map(([key, value]) => `${key}="${escapeQuoted(textOf(value))}"`).join('')}`;
  }
  return entry;
}

export function elementsToChain(elements: unknown): string {
  if (!Array.isArray(elements)) return '';
  return elements
    .filter((element): element is ElementInput => typeof element === 'object' && element !== null)
    .map(elementToString)
    .join(';');
}
