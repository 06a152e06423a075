import pg from 'pg';
import { Mutex } from '../../util/mutex.js';

/**
 * Work that one Tally process at a time may do, on stores several processes share. Each is a
 * PostgreSQL advisory lock under Tally's own class (see `LOCK_CLASS`), so that another
 * application's advisory locks on the same database never collide with them.
 */
export enum CoordinatedWork {
  /** Migrating the stores and bootstrapping an empty catalog at start-up. */
  Startup = 1,
  /** Consuming the capture log: person processing and the events' move into the warehouse. */
  Ingestion = 2,
  /** The scheduled jobs (event deletion). */
  Jobs = 3,
}

/** The connection holding a kind of work's lock broke while the work ran: another process may have done it too. */
export class LockLost extends Error {
  constructor(kind: CoordinatedWork, cause: unknown) {
    super(
      `the PostgreSQL connection holding the lock of ${CoordinatedWork[kind]} work broke while the work ran; another process may have run it at the same time`,
      {
        cause,
      },
    );
    this.name = 'LockLost';
  }
}

/** Tally's advisory lock class: the first key of every two-key advisory lock it takes. */
export const LOCK_CLASS = 0x7a11;

/** What processes tell each other, as PostgreSQL notification channels. */
export enum CoordinationChannel {
  /** Events were logged by a process that does not consume the log; the payload is how many. */
  Captured = 'tally_captured',
  /** A read waits for the log to be processed: the consumer should start now. */
  FlushWanted = 'tally_flush_wanted',
  /** Log entries were removed after their events were stored; the payload is the last id removed. */
  Processed = 'tally_processed',
}

/**
 * How the processes that share a pair of stores divide the work that must not run twice at once.
 * Embedded stores belong to one process (the data-directory lock), which does everything; on
 * PostgreSQL any number of processes share them, and this decides which one does what.
 */
export interface ProcessCoordination {
  /** True when other processes may share the stores. */
  readonly shared: boolean;
  /** Runs `work` once no other process does `kind` of work, holding it off meanwhile. */
  exclusively<T>(kind: CoordinatedWork, work: () => Promise<T>): Promise<T>;
  /** Runs `work` unless another process is doing `kind` of work; null when one was. */
  ifNoneElse<T>(kind: CoordinatedWork, work: () => Promise<T>): Promise<T | null>;
  /**
   * Takes the lead of `kind` of work as soon as no other process holds it, and keeps trying
   * while another does: `onChange(true)` when this process takes it, `onChange(false)` when it
   * loses it (its connection to PostgreSQL broke). Resolves after the first try.
   */
  campaign(kind: CoordinatedWork, onChange: (leading: boolean) => void): Promise<void>;
  /** Tells the other processes; nothing when none share the stores. */
  signal(channel: CoordinationChannel, payload?: string): void;
  /** Hears what other processes signal on `channel`. */
  listen(channel: CoordinationChannel, handler: (payload: string) => void): void;
  close(): Promise<void>;
}

/** The stores belong to this process alone: every kind of work is its own. */
export class SoleProcess implements ProcessCoordination {
  readonly shared = false;
  private readonly exclusive = new Map<CoordinatedWork, Mutex>();

  exclusively<T>(kind: CoordinatedWork, work: () => Promise<T>): Promise<T> {
    const mutex = this.exclusive.get(kind) ?? new Mutex();
    this.exclusive.set(kind, mutex);
    return mutex.run(work);
  }

  ifNoneElse<T>(kind: CoordinatedWork, work: () => Promise<T>): Promise<T | null> {
    return this.exclusively(kind, work);
  }

  async campaign(_kind: CoordinatedWork, onChange: (leading: boolean) => void): Promise<void> {
    onChange(true);
  }

  signal(): void {}

  listen(): void {}

  async close(): Promise<void> {}
}

/** The coordination session's application name in PostgreSQL, followed by the process id. */
export const COORDINATION_APPLICATION = 'tally coordination, pid ';

/** How often a process that does not lead a kind of work tries to take it: the failover time. */
const CAMPAIGN_INTERVAL_MS = 1000;

/** The wait before connecting again after the coordination connection broke. */
const RECONNECT_MS = 1000;

/** Notifications queued per channel while signals come faster: one carries them all. */
const SIGNAL_COALESCE_MS = 20;

/** Payloads one notification carries at most (PostgreSQL takes under 8,000 bytes): the newest. */
const PAYLOADS_PER_NOTIFICATION = 200;

interface Campaign {
  kind: CoordinatedWork;
  leading: boolean;
  onChange: (leading: boolean) => void;
}

/**
 * Coordination through PostgreSQL, on a connection of its own: its session holds the advisory
 * locks of the work this process leads, and listens for the other processes' notifications.
 * When the process dies, PostgreSQL ends the session and releases its locks, so another process
 * takes the lead at its next try (within `CAMPAIGN_INTERVAL_MS`). When the connection breaks and
 * the process lives on, it stops leading at once and connects again.
 */
export class PostgresCoordination implements ProcessCoordination {
  readonly shared = true;
  private client: pg.Client | null = null;
  private connecting: Promise<pg.Client> | null = null;
  private readonly campaigns: Campaign[] = [];
  private readonly handlers = new Map<CoordinationChannel, ((payload: string) => void)[]>();
  private readonly pendingSignals = new Map<CoordinationChannel, string[]>();
  private signalTimer: NodeJS.Timeout | null = null;
  private campaignTimer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(private readonly connectionString: string) {}

  async exclusively<T>(kind: CoordinatedWork, work: () => Promise<T>): Promise<T> {
    // A connection of its own: the blocking wait must not hold up the coordination session.
    const ran = await this.holdingLock(kind, 'SELECT true AS taken FROM pg_advisory_lock($1, $2)', work);
    // pg_advisory_lock returns only once it holds the lock.
    return ran!.result;
  }

  async ifNoneElse<T>(kind: CoordinatedWork, work: () => Promise<T>): Promise<T | null> {
    const ran = await this.holdingLock(kind, 'SELECT pg_try_advisory_lock($1, $2) AS taken', work);
    return ran === null ? null : ran.result;
  }

  /**
   * Runs `work` once `lockQuery` took `kind`'s lock on a connection of its own; null when it did
   * not. PostgreSQL releases the lock with the session: if the connection breaks while the work
   * runs (a restart, a failover, the session ended by an administrator), another process may
   * have started the same work meanwhile, so the call fails once the work is over rather than
   * vouch for it, and the connection's error is heard (unheard, it would end the process).
   */
  private async holdingLock<T>(kind: CoordinatedWork, lockQuery: string, work: () => Promise<T>): Promise<{ result: T } | null> {
    const client = new pg.Client({ connectionString: this.connectionString });
    let broken: unknown = null;
    client.on('error', (error) => (broken ??= error));
    await client.connect();
    try {
      const { rows } = await client.query<{ taken: boolean }>(lockQuery, [LOCK_CLASS, kind]);
      if (!rows[0]?.taken) return null;
      const result = await work();
      if (broken !== null) throw new LockLost(kind, broken);
      return { result };
    } finally {
      await client.end().catch(() => undefined);
    }
  }

  async campaign(kind: CoordinatedWork, onChange: (leading: boolean) => void): Promise<void> {
    const campaign: Campaign = { kind, leading: false, onChange };
    this.campaigns.push(campaign);
    await this.tryToLead(campaign).catch(() => undefined);
    this.campaignTimer ??= setInterval(() => {
      for (const each of this.campaigns) if (!each.leading) this.tryToLead(each).catch(() => undefined);
    }, CAMPAIGN_INTERVAL_MS).unref();
  }

  signal(channel: CoordinationChannel, payload = ''): void {
    if (this.closed) return;
    const queued = this.pendingSignals.get(channel) ?? [];
    queued.push(payload);
    this.pendingSignals.set(channel, queued);
    this.signalTimer ??= setTimeout(() => this.sendSignals(), SIGNAL_COALESCE_MS).unref();
  }

  listen(channel: CoordinationChannel, handler: (payload: string) => void): void {
    const handlers = this.handlers.get(channel);
    if (handlers) {
      handlers.push(handler);
      return;
    }
    this.handlers.set(channel, [handler]);
    this.session()
      .then((client) => client.query(`LISTEN ${channel}`))
      .catch(() => undefined);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.campaignTimer) clearInterval(this.campaignTimer);
    if (this.signalTimer) clearTimeout(this.signalTimer);
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
  }

  private async tryToLead(campaign: Campaign): Promise<void> {
    const client = await this.session();
    const { rows } = await client.query<{ taken: boolean }>('SELECT pg_try_advisory_lock($1, $2) AS taken', [LOCK_CLASS, campaign.kind]);
    // The session may have broken while the answer came: its locks went with it.
    if (!rows[0]?.taken || this.client !== client || campaign.leading) return;
    campaign.leading = true;
    campaign.onChange(true);
  }

  /** Sends the signals queued: each channel's payloads as one notification, newest last. */
  private sendSignals(): void {
    this.signalTimer = null;
    const signals = [...this.pendingSignals];
    this.pendingSignals.clear();
    this.session()
      .then(async (client) => {
        for (const [channel, payloads] of signals) {
          await client.query('SELECT pg_notify($1, $2)', [channel, payloads.slice(-PAYLOADS_PER_NOTIFICATION).join(',')]);
        }
      })
      .catch(() => undefined);
  }

  /** The coordination session, connected (again) when needed; its notifications go to the handlers. */
  private session(): Promise<pg.Client> {
    if (this.client) return Promise.resolve(this.client);
    if (this.closed) return Promise.reject(new Error('process coordination is closed'));
    this.connecting ??= this.connect().finally(() => (this.connecting = null));
    return this.connecting;
  }

  private async connect(): Promise<pg.Client> {
    // Named after the process, so an operator sees in pg_stat_activity (and pg_locks) which one leads what.
    const client = new pg.Client({ connectionString: this.connectionString, application_name: `${COORDINATION_APPLICATION}${process.pid}` });
    client.on('error', () => this.lost(client));
    client.on('end', () => this.lost(client));
    client.on('notification', (message) => {
      for (const handler of this.handlers.get(message.channel as CoordinationChannel) ?? []) handler(message.payload ?? '');
    });
    await client.connect();
    for (const channel of this.handlers.keys()) await client.query(`LISTEN ${channel}`);
    this.client = client;
    return client;
  }

  /** The session ended: every lead it held is gone; a new session is opened after a wait. */
  private lost(client: pg.Client): void {
    if (this.client !== client) return;
    this.client = null;
    client.end().catch(() => undefined);
    for (const campaign of this.campaigns) {
      if (!campaign.leading) continue;
      campaign.leading = false;
      campaign.onChange(false);
    }
    if (!this.closed) setTimeout(() => this.session().catch(() => undefined), RECONNECT_MS).unref();
  }
}
