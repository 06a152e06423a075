import { MAX_PERSON_PROPERTIES_LENGTH, personUuidFor } from '../persons/person.js';
import { isIdenticalJson } from '../util/json.js';
import { isoWithMicros } from '../util/iso-time.js';
import { mergeProperties, setProperty } from '../util/merge-properties.js';
import { isIllegalMergeId, MAX_DISTINCT_ID_LENGTH, truncateCodePoints } from './distinct-id-rules.js';
import { ingestionWarning, type IngestionWarning } from './ingestion-warning.js';
import type { NormalizedEvent, PersonUpdate } from './normalize-event.js';
import type { PersonBatch, PersonState } from './person-batch.js';
import { HOUR_MS } from '../util/time.js';

/** What an event row records about its person at ingestion time. */
export interface EventPerson {
  personId: string;
  /** The person's properties as JSON, as they are after this event. */
  personProperties: string;
  personCreatedAt: string | null;
  personMode: 'full' | 'propertyless';
}

/** A merge source as a distinct id: text, cut to the length capture keeps of any distinct id. */
function mergeIdOf(value: unknown): string {
  return truncateCodePoints(typeof value === 'string' ? value : JSON.stringify(value), MAX_DISTINCT_ID_LENGTH);
}

/** The id an identify/alias event merges into the event's person, if the event is a merge trigger. */
export function mergeSourceOf(event: NormalizedEvent): string | null {
  if (event.event === '$identify') {
    const anon = event.properties.$anon_distinct_id;
    return anon === undefined || anon === null ? null : mergeIdOf(anon);
  }
  if (event.event === '$create_alias' || event.event === '$merge_dangerously') {
    const alias = event.properties.alias;
    return alias === undefined || alias === null ? null : mergeIdOf(alias);
  }
  return null;
}

/** Events whose person changes are always written, whatever they change. */
const PERSON_EVENTS = new Set(['$identify', '$create_alias', '$merge_dangerously', '$set']);

/**
 * Values that change on every page view (URL, screen, browser, GeoIP detail). A new value of
 * one of these alone does not make PostHog write the person; it is written along with the next
 * change that matters. A key the person does not have yet always counts.
 */
const FILTERED_PERSON_UPDATE_PROPERTIES = new Set([
  '$current_url',
  '$pathname',
  '$referring_domain',
  '$referrer',
  '$screen_height',
  '$screen_width',
  '$viewport_height',
  '$viewport_width',
  '$browser',
  '$browser_version',
  '$device_type',
  '$raw_user_agent',
  '$os',
  '$os_name',
  '$os_version',
  '$geoip_postal_code',
  '$geoip_time_zone',
  '$geoip_latitude',
  '$geoip_longitude',
  '$geoip_accuracy_radius',
  '$geoip_subdivision_1_code',
  '$geoip_subdivision_1_name',
  '$geoip_subdivision_2_code',
  '$geoip_subdivision_2_name',
  '$geoip_subdivision_3_code',
  '$geoip_subdivision_3_name',
  '$geoip_city_confidence',
  '$geoip_country_confidence',
  '$geoip_postal_code_confidence',
  '$geoip_subdivision_1_confidence',
  '$geoip_subdivision_2_confidence',
]);

/** What an update did: nothing, only filtered value changes, or a change worth writing. */
export type UpdateOutcome = 'unchanged' | 'filtered' | 'changed';

/**
 * Applies $set_once, $set and $unset in PostHog's order. Any key is a property of its own: one
 * named like an Object method (`toString`) counts as absent until set, and `__proto__` is stored
 * as a key (see `setProperty`).
 */
export function applyPersonUpdate(properties: Record<string, unknown>, update: PersonUpdate, force = true): UpdateOutcome {
  // $unset removes only what the person had before this event; most events unset nothing.
  const before = update.unset.length > 0 ? new Set(Object.keys(properties)) : null;
  let outcome: UpdateOutcome = 'unchanged';
  for (const [key, value] of Object.entries(update.setOnce)) {
    if (!Object.hasOwn(properties, key)) {
      setProperty(properties, key, value);
      outcome = 'changed';
    }
  }
  for (const [key, value] of Object.entries(update.set)) {
    if (!Object.hasOwn(properties, key)) {
      setProperty(properties, key, value);
      outcome = 'changed';
    } else if (!isIdenticalJson(properties[key], value)) {
      setProperty(properties, key, value);
      if (force || !FILTERED_PERSON_UPDATE_PROPERTIES.has(key)) outcome = 'changed';
      else if (outcome === 'unchanged') outcome = 'filtered';
    }
  }
  for (const key of update.unset) {
    if (before?.has(key) && Object.hasOwn(properties, key)) {
      delete properties[key];
      outcome = 'changed';
    }
  }
  return outcome;
}

function initialProperties(event: NormalizedEvent): Record<string, unknown> {
  const initial = mergeProperties(event.personUpdate.setOnce, event.personUpdate.set);
  initial.$creator_event_uuid = event.uuid;
  return initial;
}

/**
 * Person processing for one event, as PostHog's: creation, identify/alias merges with
 * PostHog's refusal rules, property updates and last-seen. Events must arrive in ingestion order.
 */
export class PersonProcessor {
  /** Last-seen hours as text, by epoch milliseconds: a batch's events fall in few hours. */
  private readonly hourTexts = new Map<number, string>();

  constructor(
    private readonly batch: PersonBatch,
    private readonly teamId: number,
    /** Takes the warnings about merges and updates refused. */
    private readonly warn: (warning: IngestionWarning) => void,
  ) {}

  async process(event: NormalizedEvent): Promise<EventPerson> {
    if (!event.processPerson) return this.propertyless(event);
    const source = mergeSourceOf(event);
    let person: PersonState;
    let freshlyCreated = false;
    const merges = source !== null && source !== event.distinctId;
    const illegalId = !merges ? null : isIllegalMergeId(event.distinctId) ? event.distinctId : isIllegalMergeId(source) ? source : null;
    if (illegalId !== null) {
      this.warn(
        ingestionWarning('cannot_merge_with_illegal_distinct_id', {
          illegalDistinctId: illegalId,
          otherDistinctId: illegalId === source ? event.distinctId : source,
          eventUuid: event.uuid,
        }),
      );
    }
    /** The person's properties text before this event; null when the event creates it. */
    let propertiesBefore: string | null = null;
    if (merges && illegalId === null) {
      ({ person, freshlyCreated, propertiesBefore } = await this.identify(event, source));
    } else {
      const existing = await this.batch.personFor(event.distinctId);
      if (existing) {
        person = existing;
        propertiesBefore = existing.propertiesJson;
      } else {
        person = this.batch.create([event.distinctId], initialProperties(event), false, isoWithMicros(event.time), event.uuid);
        freshlyCreated = true;
      }
    }
    if (!freshlyCreated) {
      const outcome = applyPersonUpdate(person.properties, event.personUpdate, PERSON_EVENTS.has(event.event));
      if (outcome !== 'unchanged') person.propertiesJson = null;
      if (outcome === 'changed') this.batch.markDirty(person);
    }
    this.touchLastSeen(person, event);
    person.propertiesJson ??= JSON.stringify(person.properties);
    if (person.propertiesJson.length > MAX_PERSON_PROPERTIES_LENGTH && person.propertiesJson !== propertiesBefore) {
      this.refuseOversizedProperties(person, event, propertiesBefore);
    }
    return {
      personId: person.uuid,
      personProperties: person.propertiesJson,
      personCreatedAt: person.createdAt,
      personMode: 'full',
    };
  }

  /**
   * Keeps a person's properties as they were before the event (or, for a person the event
   * creates, only its creator event) when the event would make them longer than a person may
   * have: PostHog refuses such an update the same way, with this warning.
   */
  private refuseOversizedProperties(person: PersonState, event: NormalizedEvent, propertiesBefore: string | null): void {
    this.warn(
      ingestionWarning('person_properties_size_violation', {
        personId: person.uuid,
        distinctId: event.distinctId,
        eventUuid: event.uuid,
        message: 'Person properties exceeds size limit and was rejected',
      }),
    );
    person.properties = propertiesBefore === null ? { $creator_event_uuid: event.uuid } : (JSON.parse(propertiesBefore) as Record<string, unknown>);
    person.propertiesJson = propertiesBefore ?? JSON.stringify(person.properties);
  }

  private async identify(event: NormalizedEvent, otherId: string): Promise<{ person: PersonState; freshlyCreated: boolean; propertiesBefore: string | null }> {
    const into = await this.batch.personFor(event.distinctId);
    const other = await this.batch.personFor(otherId);
    if (!into && !other) {
      return {
        person: this.batch.create([event.distinctId, otherId], initialProperties(event), true, isoWithMicros(event.time), event.uuid),
        freshlyCreated: true,
        propertiesBefore: null,
      };
    }
    if (into && !other) {
      this.batch.addDistinctId(into, otherId);
      return { person: this.identified(into), freshlyCreated: false, propertiesBefore: into.propertiesJson };
    }
    if (!into && other) {
      this.batch.addDistinctId(other, event.distinctId);
      return { person: this.identified(other), freshlyCreated: false, propertiesBefore: other.propertiesJson };
    }
    const propertiesBefore = into!.propertiesJson;
    if (into === other) return { person: this.identified(into!), freshlyCreated: false, propertiesBefore };
    if (other!.isIdentified && event.event !== '$merge_dangerously') {
      this.warn(
        ingestionWarning('cannot_merge_already_identified', {
          sourcePersonDistinctId: otherId,
          targetPersonDistinctId: event.distinctId,
          eventUuid: event.uuid,
        }),
      );
      return { person: this.identified(into!), freshlyCreated: false, propertiesBefore };
    }
    await this.batch.merge(into!, other!);
    return { person: into!, freshlyCreated: false, propertiesBefore };
  }

  private identified(person: PersonState): PersonState {
    if (!person.isIdentified) {
      person.isIdentified = true;
      this.batch.markDirty(person);
    }
    return person;
  }

  /**
   * Hour-precision last-seen time. Like the filtered properties it never causes a write by
   * itself (every event would), and is written with the person's next real change.
   */
  private touchLastSeen(person: PersonState, event: NormalizedEvent): void {
    if (event.properties.$update_person_last_seen_at === false) return;
    const hourMs = Math.floor(event.time / HOUR_MS) * HOUR_MS;
    let hour = this.hourTexts.get(hourMs);
    if (hour === undefined) {
      hour = isoWithMicros(hourMs);
      this.hourTexts.set(hourMs, hour);
    }
    if (person.lastSeenAt === null || hour > person.lastSeenAt) person.lastSeenAt = hour;
  }

  private async propertyless(event: NormalizedEvent): Promise<EventPerson> {
    const existing = await this.batch.personFor(event.distinctId);
    return {
      personId: existing ? existing.uuid : personUuidFor(this.teamId, event.distinctId),
      personProperties: '{}',
      personCreatedAt: null,
      personMode: 'propertyless',
    };
  }
}
