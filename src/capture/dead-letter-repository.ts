import type { CatalogDb } from '../storage/catalog/catalog.js';

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
  /** Stores a dead letter, in the caller's transaction. */
  async record(db: CatalogDb, letter: DeadLetter, failedAt: number): Promise<void> {
    await db
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
