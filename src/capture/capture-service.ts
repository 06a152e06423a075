import type { DefinitionRecorder, RecordableEvent } from '../definitions/definition-recorder.js';
import { PersonRepository } from '../persons/person-repository.js';
import type { Project } from '../projects/project.js';
import type { ProjectRepository } from '../projects/project-repository.js';
import type { Catalog } from '../storage/catalog/catalog.js';
import { epochMsToClickhouse, isoToClickhouse } from '../storage/warehouse/datetime.js';
import { appendToOutbox, type OutboxRelay } from '../storage/warehouse/outbox.js';
import type { Mutex } from '../util/mutex.js';
import { InvalidApiKey } from './capture-errors.js';
import { parseCapture } from './event-parser.js';
import type { EventRow, EventWriter } from './event-writer.js';
import { GroupProcessor } from './group-processor.js';
import type { GroupTypeRegistry } from './group-types.js';
import { normalizeEvent, type NormalizedEvent } from './normalize-event.js';
import { PersonBatch } from './person-batch.js';
import { PersonProcessor } from './person-processor.js';
import { decodeCapturePayload, type RawCaptureRequest } from './payload-decoder.js';
import { resolveSentAt } from './timestamps.js';

export interface CaptureRequest extends RawCaptureRequest {
  ip: string | null;
  now: number;
}

const EPOCH = '1970-01-01 00:00:00.000000';

/**
 * Ingestion end to end: decode, validate, person processing in one catalog transaction (with
 * its outbox), replicas in step, events durable, definitions recorded — all before the
 * request is answered.
 */
export class CaptureService {
  private readonly persons = new PersonRepository();
  private readonly projectsByToken = new Map<string, Project>();
  private readonly projectsWithEvents = new Set<number>();

  constructor(
    private readonly catalog: Catalog,
    private readonly projects: ProjectRepository,
    private readonly groupTypes: GroupTypeRegistry,
    private readonly relay: OutboxRelay,
    private readonly writer: EventWriter,
    private readonly definitions: DefinitionRecorder,
    /**
     * Every person write (capture and the persons API) runs under this lock, one at a time in
     * arrival order, so each distinct id's events keep their order and no write is lost.
     */
    private readonly personWriteLock: Mutex,
  ) {}

  async capture(request: CaptureRequest): Promise<void> {
    const decoded = decodeCapturePayload(request);
    const queryToken = [request.query.token, request.query.api_key].find((value) => typeof value === 'string' && value !== '');
    const parsed = parseCapture(decoded.json, (queryToken as string | undefined) ?? decoded.formToken);
    const project = await this.projectFor(parsed.token);
    const sentAt = resolveSentAt(parsed.bodySentAt, request.query);
    const events = parsed.events
      .map((event) => normalizeEvent(event, { now: request.now, sentAt, ip: request.ip }))
      .filter((event): event is NormalizedEvent => event !== null);
    if (events.length === 0) return;

    const { rows, recordable } = await this.personWriteLock.run(() => this.processPersons(project.id, events, request.now));
    await this.relay.flush();
    await this.writer.write(rows);
    await this.definitions.record(project.id, recordable);
    if (!this.projectsWithEvents.has(project.id)) {
      await this.projects.markIngestedEvent(project.id);
      this.projectsWithEvents.add(project.id);
    }
  }

  private async projectFor(token: string): Promise<Project> {
    let project = this.projectsByToken.get(token);
    if (!project) {
      project = await this.projects.findByToken(token);
      if (!project) throw new InvalidApiKey();
      this.projectsByToken.set(token, project);
    }
    return project;
  }

  private async processPersons(teamId: number, events: NormalizedEvent[], now: number) {
    const createdAt = epochMsToClickhouse(now);
    try {
      return await this.catalog.db.transaction().execute(async (trx) => {
        const batch = new PersonBatch(trx, teamId, this.persons);
        await batch.preload(events.flatMap((event) => [event.distinctId, ...mergeIds(event)]));
        const personProcessor = new PersonProcessor(batch, teamId);
        const groupProcessor = new GroupProcessor(trx, teamId, this.groupTypes);
        const rows: EventRow[] = [];
        const recordable: RecordableEvent[] = [];
        for (const event of events) {
          const groups = await groupProcessor.process(event);
          const person = await personProcessor.process(event);
          rows.push({
            uuid: event.uuid,
            team_id: teamId,
            event: event.event,
            distinct_id: event.distinctId,
            properties: JSON.stringify(event.properties),
            timestamp: epochMsToClickhouse(event.time),
            created_at: createdAt,
            elements_chain: event.elementsChain,
            person_id: person.personId,
            person_properties: JSON.stringify(person.personProperties),
            person_created_at: person.personCreatedAt ? isoToClickhouse(person.personCreatedAt) : EPOCH,
            person_mode: person.personMode,
            $group_0: groups[0],
            $group_1: groups[1],
            $group_2: groups[2],
            $group_3: groups[3],
            $group_4: groups[4],
            $session_id: typeof event.properties.$session_id === 'string' ? event.properties.$session_id : '',
          });
          recordable.push({
            event: event.event,
            properties: event.properties,
            groupTypeIndex: await this.groupTypeIndexOf(trx, teamId, event),
          });
        }
        await batch.flush();
        await appendToOutbox(trx, groupProcessor.outbox);
        return { rows, recordable };
      });
    } catch (error) {
      this.groupTypes.forget(teamId);
      throw error;
    }
  }

  private async groupTypeIndexOf(db: Catalog['db'], teamId: number, event: NormalizedEvent): Promise<number | undefined> {
    if (event.event !== '$groupidentify' || typeof event.properties.$group_type !== 'string') return undefined;
    return (await this.groupTypes.indexOf(db, teamId, event.properties.$group_type, false)) ?? undefined;
  }
}

function mergeIds(event: NormalizedEvent): string[] {
  const ids = [event.properties.$anon_distinct_id, event.properties.alias];
  return ids.filter((id): id is string => typeof id === 'string');
}
