import type { RecordableEvent } from '../definitions/definition-recorder.js';
import type { PersonRepository } from '../persons/person-repository.js';
import type { CatalogDb } from '../storage/catalog/catalog.js';
import { epochMsToClickhouse, isoToClickhouse } from '../storage/warehouse/datetime.js';
import { appendToOutbox, type OutboxEntry } from '../storage/warehouse/outbox.js';
import type { TimeSlices } from '../util/yield.js';
import type { StoredCaptureLogEntry } from './capture-log.js';
import { eventRowLine, type EventRow, type SerialisedEventRow } from './event-writer.js';
import { GroupProcessor } from './group-processor.js';
import type { GroupTypeRegistry } from './group-types.js';
import type { KnownPersons } from './known-persons.js';
import { withPersonUpdate, type LoggedEvent, type NormalizedEvent } from './normalize-event.js';
import { PersonBatch } from './person-batch.js';
import { mergeSourceOf, PersonProcessor } from './person-processor.js';

const EPOCH = '1970-01-01 00:00:00.000000';

interface CatalogChanges {
  write(db: CatalogDb): Promise<OutboxEntry[]>;
}

/**
 * Person and group processing for consecutive capture-log entries, in log order. `process` only
 * reads the catalog and produces the warehouse rows; `write` then stores every person and group
 * change with its replica changes, in the caller's transaction. Both pause at the end of each
 * time slice (after a request's events, or a statement), so captures are answered meanwhile.
 */
export class IngestionBatch {
  readonly rows: SerialisedEventRow[] = [];
  /** Per request, the events for the definitions recorder. */
  readonly recordable: { teamId: number; receivedAt: number; events: RecordableEvent[] }[] = [];
  private readonly changes: CatalogChanges[] = [];
  private readonly personsByTeam = new Map<number, PersonBatch>();

  constructor(
    private readonly db: CatalogDb,
    private readonly groupTypes: GroupTypeRegistry,
    private readonly persons: PersonRepository,
    private readonly slices: TimeSlices,
    private readonly known: KnownPersons,
  ) {}

  async process(entries: readonly StoredCaptureLogEntry[]): Promise<void> {
    const teams = new Map<number, StoredCaptureLogEntry[]>();
    for (const entry of entries) {
      const list = teams.get(entry.teamId);
      if (list) list.push(entry);
      else teams.set(entry.teamId, [entry]);
    }
    for (const [teamId, teamEntries] of teams) await this.processTeam(teamId, teamEntries);
  }

  async write(db: CatalogDb): Promise<void> {
    await this.groupTypes.writeAssigned(db);
    const outbox: OutboxEntry[] = [];
    for (const changes of this.changes) outbox.push(...(await changes.write(db)));
    await appendToOutbox(db, outbox);
  }

  /** Remembers the batch's persons once its `write` is committed, for the batches after it. */
  committed(): void {
    for (const [teamId, persons] of this.personsByTeam) this.known.remember(teamId, persons.committedPersons());
  }

  private async processTeam(teamId: number, entries: readonly StoredCaptureLogEntry[]): Promise<void> {
    const persons = new PersonBatch(this.db, teamId, this.persons, this.known.forTeam(teamId));
    this.personsByTeam.set(teamId, persons);
    const events: NormalizedEvent[][] = [];
    for (const entry of entries) {
      events.push((JSON.parse(entry.eventsJson) as LoggedEvent[]).map(withPersonUpdate));
      await this.slices.pause();
    }
    await persons.preload(
      events.flat().flatMap((event) => {
        const source = mergeSourceOf(event);
        return source === null ? [event.distinctId] : [event.distinctId, source];
      }),
    );
    const personProcessor = new PersonProcessor(persons, teamId);
    const groupProcessor = new GroupProcessor(this.db, teamId, this.groupTypes);
    for (const [position, entry] of entries.entries()) {
      await this.slices.pause();
      const createdAt = epochMsToClickhouse(entry.receivedAt);
      const recordable: RecordableEvent[] = [];
      this.recordable.push({ teamId, receivedAt: entry.receivedAt, events: recordable });
      for (const event of events[position]!) {
        const groups = await groupProcessor.process(event);
        const person = await personProcessor.process(event);
        const row: EventRow = {
          uuid: event.uuid,
          team_id: teamId,
          event: event.event,
          distinct_id: event.distinctId,
          properties: JSON.stringify(event.properties),
          timestamp: epochMsToClickhouse(event.time),
          created_at: createdAt,
          elements_chain: event.elementsChain,
          person_id: person.personId,
          person_properties: person.personProperties,
          person_created_at: person.personCreatedAt ? isoToClickhouse(person.personCreatedAt) : EPOCH,
          person_mode: person.personMode,
          $group_0: groups[0],
          $group_1: groups[1],
          $group_2: groups[2],
          $group_3: groups[3],
          $group_4: groups[4],
          $session_id: typeof event.properties.$session_id === 'string' ? event.properties.$session_id : '',
        };
        this.rows.push({ teamId, uuid: event.uuid, json: eventRowLine(row) });
        recordable.push({
          event: event.event,
          properties: event.properties,
          groupTypeIndex: event.event === '$groupidentify' ? await this.groupTypeIndexOf(teamId, event) : undefined,
        });
      }
    }
    this.changes.push(persons, groupProcessor);
  }

  private async groupTypeIndexOf(teamId: number, event: NormalizedEvent): Promise<number | undefined> {
    if (typeof event.properties.$group_type !== 'string') return undefined;
    return (await this.groupTypes.indexOf(this.db, teamId, event.properties.$group_type, false)) ?? undefined;
  }
}
