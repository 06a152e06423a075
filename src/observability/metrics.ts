import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { IngestionHealthReport } from '../capture/ingestion-health.js';
import type { AppContext } from '../context.js';
import { warehouseSizeBytes } from '../storage/warehouse/warehouse-size.js';

/** How long one reading of the stores (backlog, sizes) serves a scrape's gauges. */
const READING_TTL_MS = 1000;

/** Seconds: from a fast API call to a long query. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

interface StoresReading {
  ingestion: IngestionHealthReport;
  catalogBytes: number;
  warehouseBytes: number;
}

/**
 * The process's Prometheus metrics, every name prefixed `tally_`. Traffic is counted as it
 * happens (the HTTP layer calls `requestAnswered` and `captured`); what the stores and the
 * ingestion consumer hold is read when Prometheus scrapes.
 */
export class TallyMetrics {
  readonly registry = new Registry();
  private readonly requestDuration: Histogram<'method' | 'route' | 'status'>;
  private readonly captureRequests: Counter<'endpoint' | 'status'>;
  private readonly capturedEvents: Counter<'endpoint'>;
  private readonly insertDuration: Histogram;
  private reading: { at: number; value: Promise<StoresReading> } | null = null;

  constructor(private readonly context: AppContext) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry, prefix: 'tally_' });
    this.requestDuration = new Histogram({
      name: 'tally_http_request_duration_seconds',
      help: 'Time to answer an HTTP request, by route (the path pattern) and status',
      labelNames: ['method', 'route', 'status'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.captureRequests = new Counter({
      name: 'tally_capture_requests_total',
      help: 'Capture requests answered, by endpoint and status',
      labelNames: ['endpoint', 'status'],
      registers,
    });
    this.capturedEvents = new Counter({
      name: 'tally_capture_events_total',
      help: 'Events acknowledged by capture (durable in the capture log), by endpoint',
      labelNames: ['endpoint'],
      registers,
    });
    this.insertDuration = new Histogram({
      name: 'tally_warehouse_insert_duration_seconds',
      help: "Time to insert a batch's events into the warehouse",
      buckets: LATENCY_BUCKETS,
      registers,
      collect: () => {
        for (const seconds of context.ingestion.stats.takeInsertSeconds()) this.insertDuration.observe(seconds);
      },
    });
    const { stats } = context.ingestion;
    this.total('tally_ingestion_batches_total', 'Batches of captured events stored in the warehouse by this process', () => stats.batchesStored);
    this.total('tally_ingestion_events_total', 'Events of those batches', () => stats.eventsStored);
    this.total('tally_ingestion_failures_total', 'Ingestion passes that failed (each is retried)', () => stats.failures);
    this.total('tally_dead_letter_events_total', 'Events set aside as dead letters', () => stats.deadLettered);
    this.gauge('tally_ingestion_consuming', 'Whether this process consumes the capture log (1) or another does (0)', async () =>
      context.ingestion.consuming ? 1 : 0,
    );
    this.gauge('tally_ingestion_lag_seconds', 'Age of the oldest acknowledged event not yet processed', async () => (await this.read()).ingestion.lag_s);
    this.gauge('tally_ingestion_backlog_events', 'Acknowledged events not yet processed', async () => (await this.read()).ingestion.backlog);
    this.gauge('tally_ingestion_failing', 'Whether events wait and none was processed for the stall limit (1)', async () =>
      (await this.read()).ingestion.failing ? 1 : 0,
    );
    this.gauge(
      'tally_catalog_size_bytes',
      'Size of the catalog (SQLite file and WAL, or the PostgreSQL database)',
      async () => (await this.read()).catalogBytes,
    );
    this.gauge('tally_warehouse_size_bytes', "Size of the warehouse's active parts on disk", async () => (await this.read()).warehouseBytes);
  }

  /** An HTTP request was answered; `route` is its path pattern, or null when no route matched. */
  requestAnswered(method: string, route: string | null, status: number, seconds: number): void {
    this.requestDuration.observe({ method, route: route ?? 'unmatched', status: String(status) }, seconds);
  }

  /** A capture request to `endpoint` was answered `status`. */
  captureAnswered(endpoint: string, status: number): void {
    this.captureRequests.inc({ endpoint, status: String(status) });
  }

  /** A capture request to `endpoint` acknowledged `events` events. */
  captured(endpoint: string, events: number): void {
    if (events > 0) this.capturedEvents.inc({ endpoint }, events);
  }

  /** The metrics in Prometheus's text format. */
  text(): Promise<string> {
    return this.registry.metrics();
  }

  private gauge(name: string, help: string, value: () => Promise<number>): void {
    new Gauge({
      name,
      help,
      registers: [this.registry],
      async collect() {
        this.set(await value());
      },
    });
  }

  /** A counter whose count the consumer keeps: set to it at each scrape. */
  private total(name: string, help: string, value: () => number): void {
    new Counter({
      name,
      help,
      registers: [this.registry],
      collect() {
        this.reset();
        this.inc(value());
      },
    });
  }

  /** One reading of the stores for every gauge of a scrape. */
  private read(): Promise<StoresReading> {
    if (this.reading && Date.now() - this.reading.at < READING_TTL_MS) return this.reading.value;
    const value = this.readStores();
    this.reading = { at: Date.now(), value };
    value.catch(() => (this.reading = null));
    return value;
  }

  private async readStores(): Promise<StoresReading> {
    const { catalog, storedWarehouse, ingestionHealth } = this.context;
    const [ingestion, warehouseBytes, catalogBytes] = await Promise.all([ingestionHealth.check(), warehouseSizeBytes(storedWarehouse), catalog.sizeBytes()]);
    return { ingestion, catalogBytes, warehouseBytes };
  }
}
