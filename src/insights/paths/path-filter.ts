import { ValidationError } from '../../errors.js';
import { textOf } from '../../util/text.js';
import { parseAnalysisFilter } from '../actors/analysis-filter.js';
import type { DateRangeInput } from '../../query/date-range.js';
import { isTruthyFlag } from '../../util/request-params.js';
import type { RawInput } from '../filter-model.js';
import type { PropertyGroup } from '../../query/property-filter-model.js';
import { isUsableRegex } from '../../query/property-filters.js';

export const PATH_EVENT_TYPES = ['$pageview', '$screen', 'custom_event'] as const;
export type PathEventType = (typeof PATH_EVENT_TYPES)[number];

/** A node of the paths graph: `"<1-based position>_<path item>"`. */
export interface PathNode {
  position: number;
  item: string;
}

/** A path cleaning rule: every match of `regex` in a path item becomes `alias`. */
export interface PathCleaningRule {
  regex: string;
  alias: string;
}

/** A legacy paths filter and the node selectors of the actors endpoint. */
export interface PathFilter {
  /** Empty (and no custom events): every event is a path item. */
  eventTypes: PathEventType[];
  /** Custom events by name (`include_custom_events`), beside the event types. */
  customEvents: string[];
  startPoint: string | null;
  endPoint: string | null;
  stepLimit: number;
  /** Most edges answered; null answers every edge (the default when both points are set). */
  edgeLimit: number | null;
  minEdgeWeight: number | null;
  maxEdgeWeight: number | null;
  excludeEvents: string[];
  groupings: string[];
  /** Local cleaning rules (`local_path_cleaning_filters`), applied in order after the project's. */
  cleaning: PathCleaningRule[];
  /** `path_replacements`: apply the project's path cleaning rules first. */
  pathReplacements: boolean;
  properties: PropertyGroup;
  filterTestAccounts: boolean;
  dates: DateRangeInput;
  startKey: PathNode | null;
  endKey: PathNode | null;
  dropoffKey: PathNode | null;
  /** Paths of a funnel's persons around one of their steps. */
  funnelPaths: FunnelPaths | null;
}

export const FUNNEL_PATH_TYPES = ['funnel_path_after_step', 'funnel_path_before_step', 'funnel_path_between_steps'] as const;
export type FunnelPathType = (typeof FUNNEL_PATH_TYPES)[number];

export interface FunnelPaths {
  type: FunnelPathType;
  /** The funnel filter, with its `funnel_step`, as the funnel actors endpoint reads it. */
  funnelInput: RawInput;
}

const MAX_STEP_LIMIT = 100;
const DEFAULT_EDGE_LIMIT = 50;

function jsonList(value: unknown, attr: string): unknown[] {
  if (value === undefined || value === null || value === '') return [];
  let decoded: unknown = value;
  if (typeof value === 'string') {
    try {
      decoded = JSON.parse(value);
    } catch {
      // A single plain value, as older clients send `include_event_types=$pageview`.
      decoded = [value];
    }
  }
  if (!Array.isArray(decoded)) throw new ValidationError(attr, `${attr} must be a list.`);
  return decoded;
}

function stringList(value: unknown, attr: string): string[] {
  const list = jsonList(value, attr);
  if (!list.every((item) => typeof item === 'string')) throw new ValidationError(attr, `${attr} must be a list of strings.`);
  return list as string[];
}

function eventTypes(input: RawInput): PathEventType[] {
  const requested = input.include_event_types !== undefined ? stringList(input.include_event_types, 'include_event_types') : [];
  const attr = input.include_event_types !== undefined ? 'include_event_types' : 'path_type';
  const types = requested.length > 0 ? requested : input.path_type ? [textOf(input.path_type)] : [];
  for (const type of types) {
    if (!(PATH_EVENT_TYPES as readonly string[]).includes(type)) {
      throw new ValidationError(attr, `Path event type "${type}" is not one of ${PATH_EVENT_TYPES.join(', ')}.`);
    }
  }
  return types as PathEventType[];
}

function optionalText(value: unknown): string | null {
  return value === undefined || value === null || value === '' ? null : textOf(value);
}

function stepLimit(value: unknown): number {
  if (value === undefined || value === null || value === '') return 5;
  const text = textOf(value).trim();
  if (!/^\d+$/.test(text) || Number(text) < 1 || Number(text) > MAX_STEP_LIMIT) {
    throw new ValidationError('step_limit', `step_limit must be an integer from 1 to ${MAX_STEP_LIMIT}.`);
  }
  return Number(text);
}

/** A positive integer parameter, or null when absent. */
function optionalCount(value: unknown, attr: string): number | null {
  if (value === undefined || value === null || value === '') return null;
  const text = textOf(value).trim();
  if (!/^\d+$/.test(text) || Number(text) < 1) throw new ValidationError(attr, `${attr} must be a positive integer.`);
  return Number(text);
}

/** `edge_limit`, 50 by default, and no limit by default when both a start and an end point are set, as PostHog's paths filter has it. */
function edgeLimit(input: RawInput): number | null {
  const limit = optionalCount(input.edge_limit, 'edge_limit');
  if (limit !== null) return limit;
  return optionalText(input.start_point) !== null && optionalText(input.end_point) !== null ? null : DEFAULT_EDGE_LIMIT;
}

function edgeWeights(input: RawInput): { minEdgeWeight: number | null; maxEdgeWeight: number | null } {
  const minEdgeWeight = optionalCount(input.min_edge_weight, 'min_edge_weight');
  const maxEdgeWeight = optionalCount(input.max_edge_weight, 'max_edge_weight');
  if (minEdgeWeight !== null && maxEdgeWeight !== null && maxEdgeWeight < minEdgeWeight) {
    throw new ValidationError('max_edge_weight', "Max edge weight can't be lower than min edge weight.");
  }
  return { minEdgeWeight, maxEdgeWeight };
}

function cleaningRules(value: unknown): PathCleaningRule[] {
  return jsonList(value, 'local_path_cleaning_filters').map((rule) => {
    const { regex, alias } = (rule ?? {}) as { regex?: unknown; alias?: unknown };
    if (typeof regex !== 'string' || !isUsableRegex(regex) || (alias !== undefined && typeof alias !== 'string')) {
      throw new ValidationError('local_path_cleaning_filters', 'Each cleaning rule needs a valid "regex" and a string "alias".');
    }
    return { regex, alias: alias ?? '' };
  });
}

/** `"2_/pricing"` → position 2, item `/pricing`. */
function pathNode(value: unknown, attr: string): PathNode | null {
  const text = optionalText(value);
  if (text === null) return null;
  const match = /^(\d+)_(.*)$/s.exec(text);
  if (!match || Number(match[1]) < 1) throw new ValidationError(attr, `${attr} must look like "<step>_<path item>", e.g. "1_/home".`);
  return { position: Number(match[1]), item: match[2]! };
}

export function parsePathFilter(input: RawInput): PathFilter {
  const filter = parseAnalysisFilter(input);
  const types = eventTypes(input);
  const customEvents = stringList(input.include_custom_events, 'include_custom_events');
  if (types.includes('custom_event') && customEvents.length > 0) {
    throw new ValidationError('include_custom_events', 'Cannot include all custom events and specific custom events in the same query.');
  }
  return {
    eventTypes: types,
    customEvents,
    startPoint: optionalText(input.start_point),
    endPoint: optionalText(input.end_point),
    stepLimit: stepLimit(input.step_limit),
    edgeLimit: edgeLimit(input),
    ...edgeWeights(input),
    excludeEvents: stringList(input.exclude_events, 'exclude_events'),
    groupings: stringList(input.path_groupings, 'path_groupings'),
    cleaning: cleaningRules(input.local_path_cleaning_filters),
    pathReplacements: isTruthyFlag(input.path_replacements),
    properties: filter.properties,
    filterTestAccounts: filter.filterTestAccounts,
    dates: filter.dates,
    startKey: pathNode(input.path_start_key, 'path_start_key'),
    endKey: pathNode(input.path_end_key, 'path_end_key'),
    dropoffKey: pathNode(input.path_dropoff_key, 'path_dropoff_key'),
    funnelPaths: funnelPaths(input),
  };
}

/** `funnel_paths` and the `funnel_filter` it needs (a JSON string in GET, an object in a POST body). */
function funnelPaths(input: RawInput): FunnelPaths | null {
  const type = optionalText(input.funnel_paths);
  if (type === null) return null;
  if (!(FUNNEL_PATH_TYPES as readonly string[]).includes(type)) {
    throw new ValidationError('funnel_paths', `funnel_paths must be one of ${FUNNEL_PATH_TYPES.join(', ')}.`);
  }
  let funnelInput: unknown = input.funnel_filter;
  if (typeof funnelInput === 'string') {
    try {
      funnelInput = JSON.parse(funnelInput);
    } catch {
      throw new ValidationError('funnel_filter', 'funnel_filter must be a JSON object.');
    }
  }
  if (typeof funnelInput !== 'object' || funnelInput === null || Array.isArray(funnelInput)) {
    throw new ValidationError('funnel_filter', 'funnel_paths needs a funnel_filter object.', 'required');
  }
  return { type: type as FunnelPathType, funnelInput: funnelInput as RawInput };
}
