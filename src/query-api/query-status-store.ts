/**
 * Statuses of async-mode queries. Tally computes every query before answering, so a status is
 * complete when it is made; it is kept so `GET /query/:id/` can answer it, for at least
 * PostHog's ten minutes.
 */

export interface QueryStatus {
  id: string;
  team_id: number;
  query_async: true;
  complete: true;
  error: false;
  error_message: null;
  results?: unknown;
  start_time: string;
  end_time: string;
  pickup_time: string;
  expiration_time: string;
  query_progress: null;
  task_id: null;
  insight_id: null;
  dashboard_id: null;
  labels: null;
}

/** How long a status is kept. */
const KEPT_MS = 15 * 60 * 1000;
/** Most statuses kept at once; the oldest go first. Results can be large. */
const MAX_KEPT = 500;

export class QueryStatusStore {
  private readonly statuses = new Map<string, { status: QueryStatus; expiresAt: number }>();

  constructor(private readonly clock: () => number = Date.now) {}

  /** Keeps a complete status with its results; answers it without them. */
  save(teamId: number, id: string, startedAt: Date, results: unknown): QueryStatus {
    this.prune();
    const now = this.clock();
    const status: QueryStatus = {
      id,
      team_id: teamId,
      query_async: true,
      complete: true,
      error: false,
      error_message: null,
      start_time: startedAt.toISOString(),
      pickup_time: startedAt.toISOString(),
      end_time: new Date(now).toISOString(),
      expiration_time: new Date(now + KEPT_MS).toISOString(),
      query_progress: null,
      task_id: null,
      insight_id: null,
      dashboard_id: null,
      labels: null,
    };
    this.statuses.delete(this.key(teamId, id));
    this.statuses.set(this.key(teamId, id), { status: { ...status, results }, expiresAt: now + KEPT_MS });
    while (this.statuses.size > MAX_KEPT) this.statuses.delete(this.statuses.keys().next().value!);
    return status;
  }

  get(teamId: number, id: string): QueryStatus | null {
    this.prune();
    return this.statuses.get(this.key(teamId, id))?.status ?? null;
  }

  delete(teamId: number, id: string): void {
    this.statuses.delete(this.key(teamId, id));
  }

  private key(teamId: number, id: string): string {
    return `${teamId}:${id}`;
  }

  private prune(): void {
    const now = this.clock();
    for (const [key, entry] of this.statuses) if (entry.expiresAt <= now) this.statuses.delete(key);
  }
}
