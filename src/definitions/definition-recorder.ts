import type { CatalogDb } from '../storage/catalog/catalog.js';
import type { EventDefinitionRepository } from './event-definition-repository.js';
import type { EventPropertyLink, PropertyDefinitionRepository, SeenProperty } from './property-definition-repository.js';
import { detectPropertyType } from './property-type.js';
import { NO_GROUP_TYPE, PropertyDefinitionKind } from './property-definition-type.js';
import { RecentWrites } from './recent-writes.js';
import { replaceNul } from '../util/nul.js';
import { isJsonObject as isPlainObject } from '../util/json.js';

/** An ingested event as the recorder needs it. */
export interface RecordableEvent {
  event: string;
  /** The event's stored properties, `$set` / `$set_once` / `$group_set` objects included. */
  properties: Record<string, unknown>;
  /** For `$groupidentify`: the resolved index of `properties.$group_type`. */
  groupTypeIndex?: number;
}

/** Events PostHog generates about itself; they define nothing. */
const UNRECORDED_EVENTS = new Set(['$$plugin_metrics']);

/** Keys with a special meaning to ingestion, not event properties of their own. */
const NON_EVENT_PROPERTIES = new Set(['$set', '$set_once', '$unset', '$group_0', '$group_1', '$group_2', '$group_3', '$group_4', '$groups']);

/** Feature-flag keys ride on nearly every event; linking them to each event adds rows and no meaning. */
const UNLINKED_PROPERTY_PREFIXES = ['$feature/', '$feature_enrollment/'];

/** PostHog's column limit (400 characters) halved, measured in bytes, as its writer does. */
const MAX_NAME_BYTES = 200;

/** An event definition's last_seen_at is rewritten at most once per (project, name) per hour. */
const LAST_SEEN_PERIOD_MS = 3_600_000;

const REMEMBERED_WRITES = 200_000;

function fitsColumn(name: string): boolean {
  // A UTF-16 code unit never takes more than 3 UTF-8 bytes, so short names need no encoding.
  return name.length * 3 <= MAX_NAME_BYTES || Buffer.byteLength(name, 'utf8') <= MAX_NAME_BYTES;
}

interface PendingProperty extends SeenProperty {
  key: string;
}

/** See DefinitionRecorder.settled. */
interface SettledKeys {
  /** The last-seen period in which the event definition was found written. */
  period: number;
  eventProperties: Set<string>;
  personProperties: Set<string>;
}

/** Whether every key of an event is known to be stored (then the event needs no write). */
function isSettled(properties: Record<string, unknown>, settled: SettledKeys): boolean {
  for (const key in properties) {
    if (!NON_EVENT_PROPERTIES.has(key) && !settled.eventProperties.has(key)) return false;
  }
  for (const personProperties of [properties.$set, properties.$set_once]) {
    if (!isPlainObject(personProperties)) continue;
    for (const key in personProperties) if (!settled.personProperties.has(key)) return false;
  }
  return true;
}

interface PendingLink extends EventPropertyLink {
  key: string;
}

/** What one `record` call has to write, after everything already known was skipped. */
class PendingWrites {
  readonly events = new Map<string, string>();
  readonly properties = new Map<string, PendingProperty>();
  readonly links = new Map<string, PendingLink>();

  get empty(): boolean {
    return this.events.size === 0 && this.properties.size === 0 && this.links.size === 0;
  }
}

/**
 * Upserts event definitions, property definitions and event–property links for ingested events
 * (PostHog's property-defs writer). Everything written recently is remembered, so a steady stream
 * of known events costs map lookups and no catalog writes; the rest of a call is written in a
 * few multi-row statements inside one transaction.
 */
export class DefinitionRecorder {
  private readonly eventsSeenInPeriod = new RecentWrites<number>(REMEMBERED_WRITES);
  /** true once stored with a type (final: the first type sticks), false while stored untyped. */
  private readonly propertiesStoredTyped = new RecentWrites<boolean>(REMEMBERED_WRITES);
  private readonly linksStored = new RecentWrites<true>(REMEMBERED_WRITES);
  /**
   * Per project and event name, the keys known to be fully stored: typed definitions, and the
   * event's links. An event whose keys are all here needs nothing, which is decided with lookups
   * of its own property names instead of composed keys: the common case on the hot path.
   */
  private settled = new Map<number, Map<string, SettledKeys>>();
  private settledKeys = 0;

  constructor(
    private readonly db: CatalogDb,
    private readonly eventDefinitions: EventDefinitionRepository,
    private readonly propertyDefinitions: PropertyDefinitionRepository,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Whether recording the event would write anything: false for the usual event, whose name and
   * property keys are all stored this period. Callers keep only the others for `record`.
   */
  adds(teamId: number, event: RecordableEvent, nowMs: number): boolean {
    if (UNRECORDED_EVENTS.has(event.event) || !fitsColumn(event.event)) return false;
    if (event.event === '$groupidentify') return true;
    const settled = this.settled.get(teamId)?.get(event.event);
    return !(settled && settled.period === Math.floor(nowMs / LAST_SEEN_PERIOD_MS) && isSettled(event.properties, settled));
  }

  /** Records the events of one request; `nowMs` is when it was received (the ingestion time). */
  async record(teamId: number, events: RecordableEvent[], nowMs = this.now()): Promise<void> {
    const period = Math.floor(nowMs / LAST_SEEN_PERIOD_MS);
    const pending = new PendingWrites();
    for (const event of events) this.collect(teamId, event, period, nowMs, pending);
    if (pending.empty) return;

    await this.write(teamId, pending, new Date(nowMs).toISOString());

    for (const key of pending.events.keys()) this.eventsSeenInPeriod.set(key, period);
    for (const property of pending.properties.values()) {
      this.propertiesStoredTyped.set(property.key, property.propertyType !== null);
    }
    for (const key of pending.links.keys()) this.linksStored.set(key, true);
  }

  /** After an event definition is deleted, its next sighting must create it again. */
  forgetEvent(teamId: number, name: string): void {
    this.eventsSeenInPeriod.delete(eventKey(teamId, name));
    this.settled.get(teamId)?.delete(name);
  }

  private collect(teamId: number, event: RecordableEvent, period: number, nowMs: number, pending: PendingWrites): void {
    if (UNRECORDED_EVENTS.has(event.event) || !fitsColumn(event.event)) return;
    const properties = event.properties;
    const settled = event.event === '$groupidentify' ? null : this.settledFor(teamId, event.event);
    if (settled && settled.period === period && isSettled(properties, settled)) return;

    const name = replaceNul(event.event);
    const key = eventKey(teamId, name);
    if (this.eventsSeenInPeriod.get(key) !== period) pending.events.set(key, name);
    else if (settled) settled.period = period;

    if (event.event === '$groupidentify') {
      const groupSet = properties.$group_set;
      if (event.groupTypeIndex !== undefined && isPlainObject(groupSet)) {
        this.collectProperties(teamId, groupSet, PropertyDefinitionKind.Group, event.groupTypeIndex, nowMs, pending, null);
      }
      return;
    }

    for (const [property, value] of Object.entries(properties)) {
      if (NON_EVENT_PROPERTIES.has(property) || !fitsColumn(property)) continue;
      const propertyName = replaceNul(property);
      const typed = this.collectProperty(teamId, propertyName, value, PropertyDefinitionKind.Event, NO_GROUP_TYPE, nowMs, pending);
      let linked = true;
      if (!UNLINKED_PROPERTY_PREFIXES.some((prefix) => property.startsWith(prefix))) {
        const linkKey = `${teamId}\u0000${name}\u0000${propertyName}`;
        linked = this.linksStored.get(linkKey) === true;
        if (!linked) pending.links.set(linkKey, { key: linkKey, event: name, property: propertyName });
      }
      if (typed && linked) this.settle(settled!.eventProperties, property);
    }
    for (const personProperties of [properties.$set, properties.$set_once]) {
      if (isPlainObject(personProperties)) {
        this.collectProperties(teamId, personProperties, PropertyDefinitionKind.Person, NO_GROUP_TYPE, nowMs, pending, settled!.personProperties);
      }
    }
  }

  private settledFor(teamId: number, eventName: string): SettledKeys {
    let events = this.settled.get(teamId);
    if (!events) {
      events = new Map();
      this.settled.set(teamId, events);
    }
    let keys = events.get(eventName);
    if (!keys) {
      keys = { period: -1, eventProperties: new Set(), personProperties: new Set() };
      events.set(eventName, keys);
    }
    return keys;
  }

  private settle(keys: Set<string>, property: string): void {
    if (keys.has(property)) return;
    // Bounded like the other memories; starting over only costs lookups on the slow path.
    if (++this.settledKeys > REMEMBERED_WRITES) {
      this.settled = new Map();
      this.settledKeys = 0;
      return;
    }
    keys.add(property);
  }

  private collectProperties(
    teamId: number,
    properties: Record<string, unknown>,
    kind: PropertyDefinitionKind,
    groupTypeIndex: number,
    nowMs: number,
    pending: PendingWrites,
    /** Where keys found stored with a type are remembered (see `settled`), if anywhere. */
    settledKeys: Set<string> | null,
  ): void {
    for (const [property, value] of Object.entries(properties)) {
      if (!fitsColumn(property)) continue;
      const typed = this.collectProperty(teamId, replaceNul(property), value, kind, groupTypeIndex, nowMs, pending);
      if (typed && settledKeys) this.settle(settledKeys, property);
    }
  }

  /** Adds what a property's definition needs; true when it is already stored with a type. */
  private collectProperty(
    teamId: number,
    name: string,
    value: unknown,
    kind: PropertyDefinitionKind,
    groupTypeIndex: number,
    nowMs: number,
    pending: PendingWrites,
  ): boolean {
    const key = `${teamId}\u0000${kind}\u0000${groupTypeIndex}\u0000${name}`;
    const storedTyped = this.propertiesStoredTyped.get(key);
    if (storedTyped === true) return true;
    const already = pending.properties.get(key);
    if (already?.propertyType) return false;
    const propertyType = detectPropertyType(name, value, nowMs);
    // An untyped row is worth writing once, and again only when a value finally gives it a type.
    if (propertyType === null && (storedTyped === false || already)) return false;
    pending.properties.set(key, { key, name, kind, groupTypeIndex, propertyType });
    return false;
  }

  private async write(teamId: number, pending: PendingWrites, nowIso: string): Promise<void> {
    // Sorted rows take row locks in one global order, so concurrent PostgreSQL writers cannot deadlock.
    const eventNames = [...pending.events.values()].sort();
    const properties = [...pending.properties.values()].sort((a, b) => compare(a.key, b.key));
    const links = [...pending.links.values()].sort((a, b) => compare(a.key, b.key));

    await this.db.transaction().execute(async (trx) => {
      await this.eventDefinitions.withTransaction(trx).recordSeen(teamId, eventNames, nowIso);
      const propertyDefinitions = this.propertyDefinitions.withTransaction(trx);
      await propertyDefinitions.recordSeen(teamId, properties, nowIso);
      await propertyDefinitions.linkToEvents(teamId, links);
    });
  }
}

function eventKey(teamId: number, name: string): string {
  return `${teamId}\u0000${name}`;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
