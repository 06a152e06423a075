import { v7 as uuidv7 } from 'uuid';
import { mergeProperties } from '../util/merge-properties.js';
import { elementsToChain } from './elements-chain.js';
import type { IncomingEvent } from './event-parser.js';
import { ingestionWarning, type IngestionWarning } from './ingestion-warning.js';
import { resolveEventTime } from './timestamps.js';

/** An event as the capture log keeps it: accepted, with its time resolved. */
export interface LoggedEvent {
  uuid: string;
  event: string;
  distinctId: string;
  /** The properties to store ($set/$set_once/$unset stay, as in PostHog). */
  properties: Record<string, unknown>;
  /** Epoch milliseconds (fractional for microseconds). */
  time: number;
  elementsChain: string;
  processPerson: boolean;
  /** What capture worked around in the event, recorded when it is processed; absent when nothing. */
  warnings?: IngestionWarning[];
}

/** An event ready for person processing and storage. */
export interface NormalizedEvent extends LoggedEvent {
  personUpdate: PersonUpdate;
}

export interface PersonUpdate {
  set: Record<string, unknown>;
  setOnce: Record<string, unknown>;
  unset: string[];
}

export interface NormalizeContext {
  now: number;
  sentAt: number | null;
  ip: string | null;
}

/** Person-less events may not change identities or groups; PostHog drops these. */
const IDENTITY_EVENTS = new Set(['$identify', '$create_alias', '$merge_dangerously', '$groupidentify']);
const NO_INITIAL_PROPERTIES = new Set(['$snapshot', '$performance_event']);
const NO_PERSON_PROPERTY_UPDATES = new Set(['$exception', '$$heatmap', '$groupidentify']);

/** Properties copied to the person ($set) and, as $initial_*, once ($set_once). */
const EVENT_TO_PERSON_PROPERTIES = [
  '$app_build',
  '$app_name',
  '$app_namespace',
  '$app_version',
  '$browser',
  '$browser_version',
  '$device_type',
  '$current_url',
  '$pathname',
  '$os',
  '$os_version',
  '$referring_domain',
  '$referrer',
  '$screen_height',
  '$screen_width',
  '$viewport_height',
  '$viewport_width',
  '$raw_user_agent',
];
const CAMPAIGN_PROPERTIES = [
  'utm_source',
  'utm_medium',
  'utm_campaign',
  'utm_content',
  'utm_name',
  'utm_term',
  'gclid',
  'gad_source',
  'gclsrc',
  'dclid',
  'gbraid',
  'wbraid',
  'fbclid',
  'msclkid',
  'twclid',
  'li_fat_id',
  'mc_cid',
  'igshid',
  'ttclid',
  'rdt_cid',
  'irclid',
  '_kx',
  'epik',
  'qclid',
  'sccid',
];

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function objectOrEmpty(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function unsetKeys(value: unknown): string[] {
  if (Array.isArray(value)) return value.filter((key): key is string => typeof key === 'string');
  return Object.keys(objectOrEmpty(value));
}

/** [event property, person property, its `$initial_` twin], worked out once. */
const PERSON_PROPERTY_SOURCES: readonly (readonly [string, string, string])[] = [
  ...EVENT_TO_PERSON_PROPERTIES.map((key) => [key, key] as const),
  ['$os_name', '$os'] as const,
  ...CAMPAIGN_PROPERTIES.map((key) => [key, key] as const),
].map(([source, target]) => [source, target, `$initial_${target.replace(/^\$/, '')}`] as const);

/** Each source's position in PERSON_PROPERTY_SOURCES, whose order decides between two sources of one target. */
const SOURCE_POSITIONS = new Map(PERSON_PROPERTY_SOURCES.map(([source], position) => [source, position]));

function addInitialProperties(properties: Record<string, unknown>): void {
  // An event has a handful of properties and there are dozens of sources: look its keys up.
  const positions: number[] = [];
  for (const key in properties) {
    const position = SOURCE_POSITIONS.get(key);
    if (position !== undefined) positions.push(position);
  }
  if (positions.length === 0) return;
  positions.sort((a, b) => a - b);
  let set: Record<string, unknown> | null = null;
  let setOnce: Record<string, unknown> | null = null;
  for (const position of positions) {
    const [source, target, initial] = PERSON_PROPERTY_SOURCES[position]!;
    set ??= mergeProperties(objectOrEmpty(properties.$set));
    setOnce ??= mergeProperties(objectOrEmpty(properties.$set_once));
    const value = properties[source];
    if (!(target in set)) set[target] = value;
    if (!(initial in setOnce)) setOnce[initial] = value;
  }
  if (set !== null) {
    properties.$set = set;
    properties.$set_once = setOnce;
  }
}

/**
 * PostHog's event preparation: merges top-level $set/$set_once,
 * resolves the time, applies `$process_person_profile`, adds `$initial_*` properties and moves
 * `$elements` into elements_chain. Returns null for events PostHog drops.
 */
export function normalizeEvent(incoming: IncomingEvent, context: NormalizeContext): LoggedEvent | null {
  const properties = incoming.properties;
  const uuid = incoming.uuid ?? uuidv7();
  const warnings: IngestionWarning[] = [];
  if (incoming.set) properties.$set = mergeProperties(objectOrEmpty(properties.$set), incoming.set);
  if (incoming.setOnce) properties.$set_once = mergeProperties(objectOrEmpty(properties.$set_once), incoming.setOnce);
  if (context.ip !== null && properties.$ip === undefined) properties.$ip = context.ip;
  if (typeof properties.$session_id === 'string' && UUID_PATTERN.test(properties.$session_id)) {
    properties.$session_id = properties.$session_id.toLowerCase();
  }

  const processPersonProfile = properties.$process_person_profile;
  if (processPersonProfile !== undefined && typeof processPersonProfile !== 'boolean') {
    warnings.push(
      ingestionWarning('invalid_process_person_profile', {
        eventUuid: uuid,
        event: incoming.event,
        distinctId: incoming.distinctId,
        $process_person_profile: processPersonProfile,
        message: 'Only a boolean value is valid for the $process_person_profile property',
      }),
    );
  }
  const processPerson = processPersonProfile !== false;
  if (processPerson) {
    delete properties.$process_person_profile;
  } else {
    if (IDENTITY_EVENTS.has(incoming.event)) return null;
    delete properties.$set;
    delete properties.$set_once;
    delete properties.$unset;
  }
  if (incoming.event === '$groupidentify') {
    delete properties.$set;
    delete properties.$set_once;
    delete properties.$unset;
  }
  if (processPerson && !NO_INITIAL_PROPERTIES.has(incoming.event) && incoming.event !== '$groupidentify') {
    addInitialProperties(properties);
  }

  let elementsChain = '';
  if (typeof properties.$elements_chain === 'string') elementsChain = properties.$elements_chain;
  else if (properties.$elements !== undefined) elementsChain = elementsToChain(properties.$elements);
  delete properties.$elements;
  delete properties.$elements_chain;

  const { time, warning } = resolveEventTime({
    timestamp: incoming.timestamp,
    offset: incoming.offset,
    sentAt: context.sentAt,
    ignoreSentAt: properties.$ignore_sent_at === true,
    now: context.now,
  });
  if (warning) warnings.push({ type: warning.type, details: { eventUuid: uuid, event: incoming.event, ...warning.details } });

  const event: LoggedEvent = {
    uuid,
    event: incoming.event,
    distinctId: incoming.distinctId,
    properties,
    time,
    elementsChain,
    processPerson,
  };
  if (warnings.length > 0) event.warnings = warnings;
  return event;
}

/**
 * Adds the person update an event carries, worked out from its stored properties, when it is
 * processed. The event object itself is completed: the log's copy is the one that stays.
 */
export function withPersonUpdate(event: LoggedEvent): NormalizedEvent {
  const updatesPerson = event.processPerson && !NO_PERSON_PROPERTY_UPDATES.has(event.event);
  return Object.assign(event, {
    personUpdate: {
      set: updatesPerson ? objectOrEmpty(event.properties.$set) : {},
      setOnce: updatesPerson ? objectOrEmpty(event.properties.$set_once) : {},
      unset: updatesPerson ? unsetKeys(event.properties.$unset) : [],
    },
  });
}
