import type { Project } from '../projects/project.js';
import { DAY_MS } from '../util/time.js';
import type { IngestionWarningRepository, IngestionWarningSummary } from './ingestion-warning-repository.js';

/** How far back the warnings list reaches, as PostHog's does. */
const LISTED_DAYS = 30;

/** A project's ingestion warnings as PostHog lists them: by type, newest type first, the last 30 days. */
export class IngestionWarningService {
  constructor(
    private readonly warnings: IngestionWarningRepository,
    private readonly now: () => number = Date.now,
  ) {}

  /** `search`: only warnings whose type or details contain this text. */
  list(project: Project, search: string | null): Promise<IngestionWarningSummary[]> {
    const since = new Date(this.now() - LISTED_DAYS * DAY_MS).toISOString();
    return this.warnings.summaries(project.id, since, search === '' ? null : search);
  }
}
