import type { Project } from '../projects/project.js';
import type { ProjectRepository } from '../projects/project-repository.js';
import type { Catalog } from '../storage/catalog/catalog.js';
import { CoalescingRunner } from '../util/coalescing-runner.js';
import { InvalidApiKey } from './capture-errors.js';
import { appendToCaptureLog, type CaptureLogEntry } from './capture-log.js';
import { parseCapture } from './event-parser.js';
import type { IngestionConsumer } from './ingestion-consumer.js';
import { normalizeEvent, type LoggedEvent } from './normalize-event.js';
import { decodeCapturePayload, type RawCaptureRequest } from './payload-decoder.js';
import { resolveSentAt } from './timestamps.js';

export interface CaptureRequest extends RawCaptureRequest {
  ip: string | null;
  now: number;
}

/**
 * Ingestion up to the acknowledgement: decode, validate and normalise, then commit the request's
 * events to the capture log — durable when the request is answered. Concurrent requests share a
 * commit when they can. The ingestion consumer does the rest behind the answer, and every read
 * waits for it, so acknowledged events are queryable at once.
 */
export class CaptureService {
  private readonly projectsByToken = new Map<string, Project>();
  private readonly projectsWithEvents = new Set<number>();
  private queued: CaptureLogEntry[] = [];
  private readonly logStage = new CoalescingRunner(() => this.logQueued());

  constructor(
    private readonly catalog: Catalog,
    private readonly projects: ProjectRepository,
    private readonly consumer: IngestionConsumer,
  ) {}

  async capture(request: CaptureRequest): Promise<void> {
    const decoded = decodeCapturePayload(request);
    const queryToken = [request.query.token, request.query.api_key].find((value) => typeof value === 'string' && value !== '');
    const parsed = parseCapture(decoded.json, (queryToken as string | undefined) ?? decoded.formToken);
    const project = await this.projectFor(parsed.token);
    const sentAt = resolveSentAt(parsed.bodySentAt, request.query);
    const events = parsed.events
      .map((event) => normalizeEvent(event, { now: request.now, sentAt, ip: request.ip }))
      .filter((event): event is LoggedEvent => event !== null);
    if (events.length === 0) return;

    this.queued.push({ teamId: project.id, receivedAt: request.now, events });
    await this.logStage.run();
    this.consumer.trigger();
    if (!this.projectsWithEvents.has(project.id)) {
      await this.projects.markIngestedEvent(project.id);
      this.projectsWithEvents.add(project.id);
    }
    await this.consumer.admit();
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

  /** Every request queued since the last commit, in arrival order, in one commit. */
  private async logQueued(): Promise<void> {
    // Requests whose bodies arrived in the same turn of the event loop share the commit (its fsync).
    await new Promise((resolve) => setImmediate(resolve));
    const entries = this.queued.splice(0);
    if (entries.length === 0) return;
    const ids = await appendToCaptureLog(this.catalog.db, entries);
    this.consumer.handOver(ids, entries);
  }
}
