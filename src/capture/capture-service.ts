import type { DefinitionRecorder, RecordableEvent } from '../definitions/definition-recorder.js';
import { PersonRepository } from '../persons/person-repository.js';
import type { Project } from '../projects/project.js';
import type { ProjectRepository } from '../projects/project-repository.js';
import type { Catalog } from '../storage/catalog/catalog.js';
import { epochMsToClickhouse, isoToClickhouse } from '../storage/warehouse/datetime.js';
import { appendToOutbox, type OutboxRelay } from '../storage/warehouse/outbox.js';
import { CoalescingRunner } from '../util/coalescing-runner.js';
import type { Mutex } from '../util/mutex.js';
import { InvalidApiKey } from './capture-errors.js';
import { parseCapture } from './event-parser.js';
import type { EventRow } from './event-writer.js';
import { appendPendingEvents } from './pending-events.js';
import type { WarehouseSync } from '../storage/warehouse/warehouse-sync.js';
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

/** One request's events on their way through the catalog stage, and what that stage produced. */
interface IngestionJob {
  teamId: number;
  events: NormalizedEvent[];
  now: number;
  rows: EventRow[];
  recordable: RecordableEvent[];
}

/**
 * Ingestion end to end: decode, validate, then person processing and the accepted events in one
 * catalog transaction (with the replica outbox) — durable when the request is answered — and
 * definitions recorded. The warehouse sync moves events and replica changes into the warehouse
 * behind it; every warehouse read waits for that move, so acknowledged events are queryable at once.
 */
export class CaptureService {
  private readonly persons = new PersonRepository();
  private readonly projectsByToken = new Map<string, Project>();
  private readonly projectsWithEvents = new Set<number>();
  private queued: IngestionJob[] = [];
  private readonly catalogStage = new CoalescingRunner(() => this.processQueued());

  constructor(
    private readonly catalog: Catalog,
    private readonly projects: ProjectRepository,
    private readonly groupTypes: GroupTypeRegistry,
    private readonly relay: OutboxRelay,
    private readonly sync: WarehouseSync,
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

    const job: IngestionJob = { teamId: project.id, events, now: request.now, rows: [], recordable: [] };
    this.queued.push(job);
    await this.catalogStage.run();
    this.sync.trigger();
    await this.definitions.record(project.id, job.recordable);
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

  /**
   * Person processing for every request queued since the last pass, in arrival order, in one
   * catalog transaction: one commit (one fsync) serves all of them — group commit for the
   * catalog, as the event writer does for the warehouse.
   */
  private async processQueued(): Promise<void> {
    const jobs = this.queued.splice(0);
    if (jobs.length === 0) return;
    const teams = [...new Set(jobs.map((job) => job.teamId))];
    await this.personWriteLock.run(async () => {
      try {
        await this.catalog.db.transaction().execute(async (trx) => {
          await this.relay.pruneApplied(trx);
          await this.sync.pruneMoved(trx);
          for (const teamId of teams) await this.processTeam(trx, teamId, jobs.filter((job) => job.teamId === teamId));
        });
      } catch (error) {
        for (const teamId of teams) this.groupTypes.forget(teamId);
        throw error;
      }
    });
  }

  private async processTeam(trx: Catalog['db'], teamId: number, jobs: IngestionJob[]): Promise<void> {
    const batch = new PersonBatch(trx, teamId, this.persons);
    await batch.preload(jobs.flatMap((job) => job.events.flatMap((event) => [event.distinctId, ...mergeIds(event)])));
    const personProcessor = new PersonProcessor(batch, teamId);
    const groupProcessor = new GroupProcessor(trx, teamId, this.groupTypes);
    for (const job of jobs) {
      const createdAt = epochMsToClickhouse(job.now);
      for (const event of job.events) {
        const groups = await groupProcessor.process(event);
        const person = await personProcessor.process(event);
        job.rows.push({
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
        job.recordable.push({
          event: event.event,
          properties: event.properties,
          groupTypeIndex: await this.groupTypeIndexOf(trx, teamId, event),
        });
      }
    }
    await batch.flush();
    await appendToOutbox(trx, groupProcessor.outbox);
    await appendPendingEvents(
      trx,
      teamId,
      jobs.map((job) => job.rows),
    );
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
