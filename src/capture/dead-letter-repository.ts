import type { CatalogDb, CatalogTransaction } from '../storage/catalog/catalog.js';

/** An event the consumer gave up on, as the capture log held it. */
export interface DeadLetter {
  teamId: number;
  eventUuid: string | null;
  event: string | null;
  distinctId: string | null;
  payload: string;
  error: string;
  /** When its request was received, epoch milliseconds. */
  receivedAt: number;
}

/** The catalog's `dead_letter_events`. */
export class DeadLetterRepository {
  constructor(private readonly db: CatalogDb) {}

  withTransaction(trx: CatalogTransaction): DeadLetterRepository {
    return new DeadLetterRepository(trx);
  }

  async record(letter: DeadLetter, failedAt: number): Promise<void> {
    await this.db
      .insertInto('dead_letter_events')
      .values({
        team_id: letter.teamId,
        event_uuid: letter.eventUuid,
        event: letter.event,
        distinct_id: letter.distinctId,
        payload: letter.payload,
        error: letter.error,
        received_at: letter.receivedAt,
        failed_at: new Date(failedAt).toISOString(),
      })
      .execute();
  }
}
