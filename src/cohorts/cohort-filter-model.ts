import type { PropertyFilter, PropertyGroup } from '../query/property-filter-model.js';

/** The parsed definition of a dynamic cohort: AND/OR groups over person, cohort and behavioural filters. */
export type CohortNode = CohortGroup | PersonCondition | CohortReference | BehavioralFilter;

export interface CohortGroup {
  kind: 'group';
  type: 'AND' | 'OR';
  values: CohortNode[];
}

/** A person-property filter, compiled by the shared property-filter compiler. */
export interface PersonCondition {
  kind: 'person';
  filter: PropertyFilter;
}

export interface CohortReference {
  kind: 'cohort';
  cohortId: number;
  negation: boolean;
}

export const BEHAVIORAL_KINDS = [
  'performed_event',
  'performed_event_multiple',
  'performed_event_first_time',
  'stopped_performing_event',
  'restarted_performing_event',
  'performed_event_regularly',
  'performed_event_sequence',
] as const;
export type BehavioralKind = (typeof BEHAVIORAL_KINDS)[number];

export const TIME_INTERVALS = ['minute', 'hour', 'day', 'week', 'month', 'year'] as const;
export type TimeInterval = (typeof TIME_INTERVALS)[number];

export interface TimeSpan {
  value: number;
  interval: TimeInterval;
}

/** An event name or an action id. */
export type BehavioralEntity = { type: 'events'; event: string } | { type: 'actions'; actionId: number };

export type CountOperator = '=' | '>=' | '<=' | '>' | '<';

export interface BehavioralFilter {
  kind: 'behavioral';
  behavior: BehavioralKind;
  entity: BehavioralEntity;
  /** How far back the filter looks; null when `explicit_datetime` sets the start instead. */
  window: TimeSpan | null;
  /** `explicit_datetime` as sent (relative like `-7d`, or absolute). */
  explicitDatetime: string | null;
  /** Event property filters every counted event must match. */
  eventFilters: PropertyGroup;
  countOperator: CountOperator;
  operatorValue: number;
  /** stopped/restarted: the recent window; sequence: how soon after the first event the second must follow. */
  seqWindow: TimeSpan | null;
  seqEntity: BehavioralEntity | null;
  totalPeriods: number;
  minPeriods: number;
  negation: boolean;
}

/** Every cohort id a definition refers to, however deeply nested. */
export function referencedCohorts(node: CohortNode): number[] {
  if (node.kind === 'cohort') return [node.cohortId];
  if (node.kind === 'group') return node.values.flatMap(referencedCohorts);
  return [];
}

/** Every action id a definition's behavioural filters refer to. */
export function referencedActions(node: CohortNode): number[] {
  if (node.kind === 'group') return node.values.flatMap(referencedActions);
  if (node.kind !== 'behavioral') return [];
  return [node.entity, node.seqEntity].flatMap((entity) => (entity?.type === 'actions' ? [entity.actionId] : []));
}
