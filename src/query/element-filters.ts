import { ValidationError } from '../errors.js';
import type { PropertyFilter } from './property-filter-model.js';
import { stringifyValue } from './property-values.js';
import type { SqlParams } from './sql-params.js';

/**
 * Element (autocapture) filters, matched with regular expressions against `elements_chain`:
 * `tag.class1.class2:attr__href="…"attr_id="…"href="…"nth-child="1"text="…";parent…`.
 */

/** Escapes every RE2 metacharacter, so a value matches literally. */
export function escapeRegex(text: string): string {
  return text.replace(/[\\^$.|?*+()[\]{}\-/]/g, (char) => `\\${char}`);
}

const NEGATED = new Set(['is_not', 'not_icontains', 'not_regex', 'is_not_set']);

interface SelectorPart {
  tagName: string | null;
  classes: string[];
  attributes: Record<string, string>;
  directDescendant: boolean;
}

const ATTRIBUTE = /^(.*)\[(.*)=['"](.*)['"]\]$/;

function parseSelectorPart(text: string, directDescendant: boolean): SelectorPart {
  const attributes: Record<string, string> = {};
  let rest = text;
  const attribute = ATTRIBUTE.exec(rest);
  if (attribute) {
    attributes[attribute[2] === 'href' ? 'attr__href' : attribute[2]!] = attribute[3]!;
    rest = attribute[1]!;
  }
  const hash = rest.indexOf('#');
  if (hash >= 0) {
    attributes.attr_id = rest.slice(hash + 1);
    rest = rest.slice(0, hash);
  }
  const [tag = '', ...classes] = rest.split('.');
  return { tagName: tag === '' ? null : tag, classes: classes.filter(Boolean), attributes, directDescendant };
}

/** Parts from the clicked element outwards, the order of elements_chain. */
function parseSelector(selector: string): SelectorPart[] {
  const tokens = selector.replaceAll('> * > ', '').replaceAll('> *', '').trim().split(/\s+/).reverse();
  const parts: SelectorPart[] = [];
  tokens.forEach((token, index) => {
    if (token === '>' || token === '') return;
    parts.push(parseSelectorPart(token, index > 0 && tokens[index - 1] === '>'));
  });
  return parts;
}

export function selectorRegex(selector: string): string {
  let regex = '';
  for (const part of parseSelector(selector)) {
    if (part.tagName && part.tagName !== '*') regex += escapeRegex(part.tagName);
    if (part.classes.length > 0) {
      regex += `.*?\\.${[...part.classes].sort().map(escapeRegex).join('\\..*?')}`;
    }
    const attributes = Object.entries(part.attributes).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    if (attributes.length > 0) {
      regex += '.*?';
      for (const [key, value] of attributes) regex += `${escapeRegex(key)}="${escapeRegex(value)}".*?`;
    }
    regex += '([-_a-zA-Z0-9\\.:"= \\[\\]\\(\\),]*?)?($|;|:([^;^\\s]*(;|$|\\s)))';
    if (part.directDescendant) regex += '.*';
  }
  return regex === '' ? '' : `(^|;)${regex}`;
}

function attributeValuePatterns(value: unknown, operator: string): string[] {
  if (operator.endsWith('_set')) return ['[^"]+'];
  const values = (Array.isArray(value) ? value : [value]).map((item) => stringifyValue(item).replaceAll('"', '\\"'));
  if (operator.endsWith('icontains')) return values.map((text) => `[^"]*${escapeRegex(text)}[^"]*`);
  if (operator.endsWith('regex')) return values;
  return values.map(escapeRegex);
}

/** The condition of an element filter on the elements chain column. */
export function elementCondition(filter: PropertyFilter, elementsChain: string, params: SqlParams): string {
  const { key, operator } = filter;
  const values = Array.isArray(filter.value) ? filter.value : [filter.value];
  const patterns: string[] = [];
  if (key === 'selector' || key === 'tag_name') {
    if (operator !== 'exact' && operator !== 'is_not') {
      throw new ValidationError(
        'properties',
        `Filtering by element ${key === 'selector' ? 'selector' : 'tag'} only supports operators "equals" and "doesn't equal" currently.`,
      );
    }
    for (const item of values) {
      if (!item) continue;
      if (typeof item !== 'string') throw new ValidationError('properties', `${key === 'selector' ? 'Selector' : 'Tag name'} must be a string`);
      patterns.push(key === 'selector' ? selectorRegex(item) : `(^|;)${escapeRegex(item)}(\\.|$|;|:)`);
    }
  } else if (key === 'href' || key === 'text') {
    const caseFlag = operator.endsWith('icontains') ? '(?i)' : '';
    for (const pattern of attributeValuePatterns(filter.value, operator)) patterns.push(`${caseFlag}(${key}="${pattern}")`);
  } else {
    throw new ValidationError('properties', `Invalid element filtering key "${key}"`);
  }
  const usable = patterns.filter((pattern) => pattern !== '');
  const negated = NEGATED.has(operator);
  // No value to look for matches nothing, or everything when negated.
  if (usable.length === 0) return negated ? '1' : '0';
  const matches = usable.map((pattern) => `match(${elementsChain}, ${params.add(pattern, 'String')})`).join(' OR ');
  return negated ? `NOT (${matches})` : `(${matches})`;
}
