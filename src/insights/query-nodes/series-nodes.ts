import { ValidationError } from '../../errors.js';
import { combineAnd, type PropertyGroup } from '../../query/property-filter-model.js';
import { COUNT_PER_ACTOR_MATHS, PROPERTY_MATHS, type RawInput } from '../filter-model.js';
import { invalid, isAbsent, isObject, nodeProperties, optionalInteger, optionalString, refuseUnless } from './insight-node-fields.js';

/**
 * The series of an insight query node (`EventsNode`, `ActionsNode`) as legacy entities: the
 * raw entity the legacy parser reads (with `order` = the series' index) and its property
 * filters, which the converters put back on the parsed entity.
 */

export interface SeriesEntry {
  raw: RawInput;
  type: 'events' | 'actions';
  properties: PropertyGroup;
}

/**
 * How an insight reads a series' math: `trends` computes every math the trend runner has;
 * `ignored` (lifecycle) counts persons whatever the math; `actors` (stickiness, PostHog's
 * `MathAvailability.ActorsOnly`) counts persons too, so only maths that would count something
 * else are refused.
 */
export type SeriesMathMode = 'trends' | 'ignored' | 'actors';

const TREND_MATHS = new Set<string>([
  'total',
  'dau',
  'weekly_active',
  'monthly_active',
  'unique_session',
  'unique_group',
  ...PROPERTY_MATHS,
  ...COUNT_PER_ACTOR_MATHS,
]);

function trendMath(node: Record<string, unknown>, raw: RawInput, at: string): void {
  const math = optionalString(node.math, `${at}.math`);
  if (math !== null) {
    if (math === 'hogql') invalid(`${at}.math`, 'Tally cannot compute HogQL maths yet.');
    refuseUnless(TREND_MATHS.has(math), `${at}.math`, `Tally cannot compute the math "${math}" yet.`);
    raw.math = math;
  }
  const mathProperty = optionalString(node.math_property, `${at}.math_property`);
  if (math !== null && (PROPERTY_MATHS as readonly string[]).includes(math) && !mathProperty) {
    throw new ValidationError(`${at}.math_property`, 'This field is required when `math` is set to a function.', 'required');
  }
  if (mathProperty !== null) raw.math_property = mathProperty;
  const groupIndex = optionalInteger(node.math_group_type_index, `${at}.math_group_type_index`, 0, 4);
  if (math === 'unique_group' && groupIndex === null) {
    throw new ValidationError(`${at}.math_group_type_index`, 'This field is required when `math` is unique_group.', 'required');
  }
  if (groupIndex !== null) raw.math_group_type_index = groupIndex;
  const multiplier = node.math_multiplier;
  refuseUnless(isAbsent(multiplier) || multiplier === 1, `${at}.math_multiplier`, 'Tally cannot multiply series yet.');
}

function actorMath(node: Record<string, unknown>, at: string): void {
  const math = optionalString(node.math, `${at}.math`);
  if (math === 'hogql') invalid(`${at}.math`, 'Tally cannot compute HogQL maths yet.');
  if (math === 'unique_group') invalid(`${at}.math`, 'Tally counts persons in this insight: aggregating by groups is not supported yet.');
}

/** The series at `series.<index>` of the node at `path`. */
export function seriesEntry(node: unknown, index: number, path: string, mode: SeriesMathMode): SeriesEntry {
  const at = `${path}.series.${index}`;
  if (!isObject(node)) invalid(at, 'Each series must be an object.');
  const kind = node.kind;
  if (kind === 'DataWarehouseNode') invalid(`${at}.kind`, 'Tally has no data warehouse: series must be EventsNode or ActionsNode.');
  if (kind !== 'EventsNode' && kind !== 'ActionsNode') invalid(`${at}.kind`, 'A series must be an EventsNode or an ActionsNode.');

  const raw: RawInput = { order: index };
  if (kind === 'EventsNode') {
    raw.id = optionalString(node.event, `${at}.event`);
  } else {
    const id = node.id;
    if (typeof id !== 'number' || !Number.isInteger(id)) invalid(`${at}.id`, 'An ActionsNode needs the integer id of an action.');
    raw.id = id;
  }
  const name = optionalString(node.name, `${at}.name`);
  if (name !== null && name !== '') raw.name = name;
  const customName = optionalString(node.custom_name, `${at}.custom_name`);
  if (customName !== null) raw.custom_name = customName;

  if (mode === 'trends') trendMath(node, raw, at);
  else if (mode === 'actors') actorMath(node, at);

  const properties = combineAnd(nodeProperties(node.properties, `${at}.properties`), nodeProperties(node.fixedProperties, `${at}.fixedProperties`));
  return { raw, type: kind === 'EventsNode' ? 'events' : 'actions', properties };
}

/** Every series of the node at `path`; a node without a list of them is a 400. */
export function nodeSeries(node: Record<string, unknown>, path: string, mode: SeriesMathMode): SeriesEntry[] {
  if (!Array.isArray(node.series)) invalid(`${path}.series`, `A ${String(node.kind)} needs a list of series.`);
  return node.series.map((item, index) => seriesEntry(item, index, path, mode));
}

/** The raw `events` and `actions` lists of the legacy filter. */
export function legacySeriesLists(series: SeriesEntry[]): { events: RawInput[]; actions: RawInput[] } {
  return {
    events: series.filter((entry) => entry.type === 'events').map((entry) => entry.raw),
    actions: series.filter((entry) => entry.type === 'actions').map((entry) => entry.raw),
  };
}
