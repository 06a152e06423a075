import type { DefinitionRecorder, RecordableEvent } from '../definitions/definition-recorder.js';
import type { GroupRepository } from '../groups/group-repository.js';
import type { PersonRepository } from '../persons/person-repository.js';
import type { CatalogTransaction } from '../storage/catalog/catalog.js';
import type { OutboxEntry } from '../storage/warehouse/outbox.js';
import type { OutboxRepository } from '../storage/warehouse/outbox-repository.js';
import { epochMsToMicros } from '../util/iso-time.js';
import { parseWellFormedJson } from '../util/well-formed-json.js';
import type { TimeSlices } from '../util/yield.js';
import { loggedEventsText, type StoredCaptureLogEntry } from './capture-log.js';
import { EventRowBuffer, type EventRow } from './event-row-buffer.js';
import { GroupProcessor } from './group-processor.js';
import type { GroupTypeRegistry } from './group-type-registry.js';
import { ingestionWarning, type IngestionWarning, type ProjectIngestionWarning } from './ingestion-warning.js';
import type { IngestionWarningRepository } from './ingestion-warning-repository.js';
import { loggedPropertiesPieces } from './logged-events-json.js';
import { withPersonUpdate, type LoggedEvent, type NormalizedEvent } from './normalize-event.js';
import { PersonBatch } from './person-batch.js';
import type { PersonCache } from './person-cache.js';
import { mergeSourceOf, PersonProcessor } from './person-processor.js';
import { isStorableEventTime } from './timestamps.js';

/**
 * Events parsed and processed together (see `process`): about one person lookup statement's
 * worth. Parsed events that are alive when the young generation is collected get copied, so the
 * fewer are held at a time the less of that (2,000 held copied a tenth more per event).
 */
const EVENTS_PER_CHUNK = 500;

/** The distinct ids whose persons an event's processing reads. */
function personDistinctIds(event: NormalizedEvent): string[] {
  const source = mergeSourceOf(event);
  return source === null ? [event.distinctId] : [event.distinctId, source];
}

/** What a batch works with; the consumer keeps them from one batch to the next. */
export interface BatchServices {
  /** Groups and group types, read through the catalog pausing between statements at the end of a time slice. */
  groups: GroupRepository;
  outbox: OutboxRepository;
  groupTypes: GroupTypeRegistry;
  /** Persons, read through the same pausing catalog. */
  persons: PersonRepository;
  personCache: PersonCache;
  slices: TimeSlices;
  definitions: DefinitionRecorder;
  warnings: IngestionWarningRepository;
}

interface CatalogChanges {
  write(trx: CatalogTransaction): Promise<OutboxEntry[]>;
}

/** A log entry's events, parsed. */
interface ParsedEntry {
  entry: StoredCaptureLogEntry;
  events: NormalizedEvent[];
}

/** What a batch processes the events of one project with. */
interface TeamProcessing {
  teamId: number;
  persons: PersonBatch;
  personProcessor: PersonProcessor;
  groupProcessor: GroupProcessor;
  /** When the entry being processed was received: the time of the warnings its processing records. */
  receivedAt: number;
}

/**
 * Person and group processing for consecutive capture-log entries, in log order. `process` only
 * reads the catalog and produces the warehouse rows; `write` then stores every person and group
 * change with its replica changes, in the caller's transaction. Both pause at the end of each
 * time slice (after a request's events, or a statement), so captures are answered meanwhile.
 */
export class IngestionBatch {
  readonly rows = new EventRowBuffer();
  /** Per request, the events for the definitions recorder. */
  readonly recordable: { teamId: number; receivedAt: number; events: RecordableEvent[] }[] = [];
  private readonly changes: CatalogChanges[] = [];
  private readonly personBatches: PersonBatch[] = [];
  private readonly teams = new Map<number, TeamProcessing>();
  /** What capture and processing worked around, stored with the batch's catalog changes. */
  private readonly warnings: ProjectIngestionWarning[] = [];

  constructor(private readonly using: BatchServices) {}

  /**
   * Processes entries in log order until their event rows take `maxRowBytes`; returns how many
   * it processed (at least one), the rest being left for another batch.
   */
  async process(entries: readonly StoredCaptureLogEntry[], maxRowBytes = Number.POSITIVE_INFINITY): Promise<number> {
    for (let next = 0; next < entries.length; ) {
      // A few hundred events at a time, parsed, their persons found, then processed: the batch
      // never holds all of its parsed events at once.
      const chunk: ParsedEntry[] = [];
      for (let size = 0; next < entries.length && size < EVENTS_PER_CHUNK; ) {
        const entry = entries[next++]!;
        // Capture replaces lone surrogates and U+0000 before logging, and the decoding thread tells
        // so by the spans (see `SerializedEvents`); a log written by an older build may hold some.
        const text = loggedEventsText(entry.events);
        const events = ((entry.propertiesSpans ? JSON.parse(text) : parseWellFormedJson(text)) as LoggedEvent[]).map(withPersonUpdate);
        for (const event of events) this.takeWarnings(entry.teamId, entry, event);
        chunk.push({ entry, events });
        size += events.length;
        await this.using.slices.pause();
      }
      const idsByTeam = new Map<number, { ids: string[]; merging: string[] }>();
      for (const { entry, events } of chunk) {
        const team = idsByTeam.get(entry.teamId) ?? { ids: [], merging: [] };
        idsByTeam.set(entry.teamId, team);
        for (const event of events) {
          const ids = personDistinctIds(event);
          team.ids.push(...ids);
          if (ids.length > 1) team.merging.push(...ids);
        }
      }
      for (const [teamId, { ids, merging }] of idsByTeam) await this.teamOf(teamId).persons.preload(ids, merging);
      for (const [index, parsed] of chunk.entries()) {
        await this.using.slices.pause();
        await this.processRequest(parsed, this.teamOf(parsed.entry.teamId));
        if (this.rows.byteLength >= maxRowBytes) return next - chunk.length + index + 1;
      }
    }
    return entries.length;
  }

  async write(trx: CatalogTransaction): Promise<void> {
    await this.using.groupTypes.writeAssigned(this.using.groups.withTransaction(trx));
    const outbox: OutboxEntry[] = [];
    for (const changes of this.changes) outbox.push(...(await changes.write(trx)));
    await this.using.outbox.withTransaction(trx).append(outbox);
    await this.using.warnings.withTransaction(trx).record(this.warnings);
  }

  /** Tells the person cache what `write` stored; only once its transaction is committed. */
  rememberCommitted(): void {
    for (const persons of this.personBatches) persons.rememberCommitted();
  }

  /**
   * Keeps the warnings capture attached to an event, and makes its time storable: capture
   * resolves every time to one, but a log written by an older build may hold others.
   */
  private takeWarnings(teamId: number, entry: StoredCaptureLogEntry, event: NormalizedEvent): void {
    const warnings: IngestionWarning[] = event.warnings ?? [];
    if (!isStorableEventTime(event.time, entry.receivedAt)) {
      warnings.push(
        ingestionWarning('ignored_invalid_timestamp', {
          eventUuid: event.uuid,
          event: event.event,
          field: 'timestamp',
          value: Number.isFinite(event.time) ? new Date(event.time).toISOString() : String(event.time),
          reason: 'outside the range events are stored with',
        }),
      );
      event.time = entry.receivedAt;
    }
    for (const warning of warnings) this.warnings.push({ ...warning, teamId, at: entry.receivedAt });
  }

  /** The persons and groups of a project in this batch, made when its first entry comes. */
  private teamOf(teamId: number): TeamProcessing {
    let team = this.teams.get(teamId);
    if (!team) {
      const persons = new PersonBatch(teamId, this.using.persons, this.using.personCache);
      const warn = (warning: IngestionWarning) => this.warnings.push({ ...warning, teamId, at: processing.receivedAt });
      const processing: TeamProcessing = {
        teamId,
        persons,
        personProcessor: new PersonProcessor(persons, teamId, warn),
        groupProcessor: new GroupProcessor(this.using.groups, teamId, this.using.groupTypes, warn),
        receivedAt: 0,
      };
      team = processing;
      this.teams.set(teamId, team);
      this.changes.push(team.persons, team.groupProcessor);
      this.personBatches.push(team.persons);
    }
    return team;
  }

  private async processRequest({ entry, events }: ParsedEntry, team: TeamProcessing): Promise<void> {
    const { teamId, personProcessor, groupProcessor } = team;
    team.receivedAt = entry.receivedAt;
    const createdAt = epochMsToMicros(entry.receivedAt);
    // Known for entries this process logged (see `SerializedEvents`).
    const logged = entry.propertiesSpans ? { bytes: entry.events, propertiesSpans: entry.propertiesSpans } : null;
    const recordable: RecordableEvent[] = [];
    for (const [index, event] of events.entries()) {
      const { columns: groups, addedProperties } = await groupProcessor.process(event);
      const person = await personProcessor.process(event);
      const row: EventRow = {
        uuid: event.uuid,
        team_id: teamId,
        event: event.event,
        distinct_id: event.distinctId,
        // The properties' bytes as the decoding thread serialised them: what serialising the
        // parsed properties would give, without its cost. An overwritten `$group_N` moves no key, but
        // changes a value inside the text: then the properties are serialised again.
        properties: logged && addedProperties !== null ? loggedPropertiesPieces(logged, index, addedProperties) : JSON.stringify(event.properties),
        timestamp: epochMsToMicros(event.time),
        created_at: createdAt,
        elements_chain: event.elementsChain,
        person_id: person.personId,
        person_properties: person.personProperties,
        person_created_at: person.personCreatedAt ? Date.parse(person.personCreatedAt) * 1000 : 0,
        person_mode: person.personMode,
        $group_0: groups[0],
        $group_1: groups[1],
        $group_2: groups[2],
        $group_3: groups[3],
        $group_4: groups[4],
        $session_id: typeof event.properties.$session_id === 'string' ? event.properties.$session_id : '',
      };
      this.rows.add(row);
      // Most events add nothing to the definitions; only the others are kept for the recorder.
      const definable: RecordableEvent = {
        event: event.event,
        properties: event.properties,
        groupTypeIndex: event.event === '$groupidentify' ? await this.groupTypeIndexOf(teamId, event) : undefined,
      };
      if (this.using.definitions.adds(teamId, definable, entry.receivedAt)) recordable.push(definable);
    }
    if (recordable.length > 0) this.recordable.push({ teamId, receivedAt: entry.receivedAt, events: recordable });
  }

  private async groupTypeIndexOf(teamId: number, event: NormalizedEvent): Promise<number | undefined> {
    if (typeof event.properties.$group_type !== 'string') return undefined;
    return (await this.using.groupTypes.indexOf(this.using.groups, teamId, event.properties.$group_type, false)) ?? undefined;
  }
}
