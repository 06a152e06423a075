import type { Project } from '../projects/project.js';
import type { ProjectRepository } from '../projects/project-repository.js';
import { yieldToEventLoop } from '../util/yield.js';
import type { CaptureRequest } from './accept-request.js';
import { InvalidApiKey } from './capture-errors.js';
import type { CaptureLog, CaptureLogEntry } from './capture-log.js';
import type { IngestionConsumer } from './ingestion-consumer.js';
import { RequestDecoder } from './request-decoder.js';

/**
 * Ingestion up to the acknowledgement: decode, validate and normalise (on the decoding thread),
 * then commit the request's events to the capture log — durable when the request is answered.
 * Requests decoded in the same turn of the event loop share a commit. The ingestion consumer does
 * the rest behind the answer, and every read waits for it, so acknowledged events are queryable
 * at once.
 */
export class CaptureService {
  private readonly decoder = new RequestDecoder();
  private readonly projectsByToken = new Map<string, Project>();
  private readonly projectsWithEvents = new Set<number>();
  private queued: CaptureLogEntry[] = [];
  /** The append of the requests queued in this turn of the event loop, once one is. */
  private turnAppend: Promise<void> | null = null;

  constructor(
    private readonly log: CaptureLog,
    private readonly projects: ProjectRepository,
    private readonly consumer: IngestionConsumer,
  ) {}

  /** Accepts a request's events; resolves with how many, once they are durable. */
  async capture(request: CaptureRequest): Promise<number> {
    const decoded = await this.decoder.decode(request);
    const project = await this.projectFor(decoded.token);
    if (decoded.eventCount === 0) return 0;

    const { eventCount, events, propertiesSpans } = decoded;
    this.queued.push({ teamId: project.id, receivedAt: request.now, eventCount, events, propertiesSpans });
    this.turnAppend ??= this.logQueued();
    await this.turnAppend;
    if (!this.projectsWithEvents.has(project.id)) {
      await this.projects.markIngestedEvent(project.id);
      this.projectsWithEvents.add(project.id);
    }
    await this.consumer.admit();
    return eventCount;
  }

  close(): Promise<void> {
    return this.decoder.close();
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
   * The requests queued in this turn of the event loop, in arrival order, in one append: they
   * share its write. It does not wait for earlier appends still on the disk; the log keeps the
   * order and resolves appends in it, so entries are handed over in id order.
   */
  private async logQueued(): Promise<void> {
    await yieldToEventLoop();
    this.turnAppend = null;
    const entries = this.queued.splice(0);
    const ids = await this.log.append(entries);
    this.consumer.handOver(ids, entries);
  }
}
