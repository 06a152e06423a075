import { v7 as uuidv7 } from 'uuid';
import type { CatalogDb, CatalogTransaction } from '../storage/catalog/catalog.js';
import { parseJsonColumn } from '../util/json.js';
import { nowIso } from '../util/time.js';

/** The activity-log scope of person entries. */
export const PERSON_SCOPE = 'Person';

/** One change inside an activity entry, as PostHog records it. */
export interface ActivityChange {
  type: string;
  action: string;
  field: string | null;
  before: unknown;
  after: unknown;
}

export interface ActivityDetail {
  changes: ActivityChange[] | null;
  trigger: null;
  type: null;
  name: string | null;
  short_id: null;
}

export interface NewActivity {
  teamId: number;
  scope: string;
  itemId: string;
  activity: string;
  userId: number | null;
  detail: ActivityDetail;
}

/** An entry as the API shows it (PostHog's ActivityLogSerializer). */
export interface ActivityEntry {
  id: string;
  user: { first_name: string; email: string | null };
  activity: string;
  scope: string;
  item_id: string;
  detail: ActivityDetail;
  created_at: string;
}

export interface ActivityQuery {
  teamId: number;
  scope: string;
  /** Only this item's entries; all of the scope when absent. */
  itemId?: string;
}

export function activityDetail(name: string | null, changes: ActivityChange[] | null): ActivityDetail {
  return { changes, trigger: null, type: null, name, short_id: null };
}

/** Catalog SQL for the activity log. An entry is appended in the transaction of its change (see `withTransaction`). */
export class ActivityLogRepository {
  constructor(private readonly db: CatalogDb) {}

  withTransaction(trx: CatalogTransaction): ActivityLogRepository {
    return new ActivityLogRepository(trx);
  }

  async append(entry: NewActivity): Promise<void> {
    await this.db
      .insertInto('activity_log')
      .values({
        uuid: uuidv7(),
        team_id: entry.teamId,
        scope: entry.scope,
        item_id: entry.itemId,
        activity: entry.activity,
        user_id: entry.userId,
        detail: JSON.stringify(entry.detail),
        created_at: nowIso(),
      })
      .execute();
  }

  /** A page of entries, newest first, with the total number of matching entries. */
  async list(query: ActivityQuery, page: { limit: number; offset: number }) {
    let matching = this.db.selectFrom('activity_log as a').where('a.team_id', '=', query.teamId).where('a.scope', '=', query.scope);
    if (query.itemId !== undefined) matching = matching.where('a.item_id', '=', query.itemId);
    const total = await matching.select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
    const rows = await matching
      .leftJoin('users as u', 'u.id', 'a.user_id')
      .select(['a.uuid', 'a.scope', 'a.item_id', 'a.activity', 'a.detail', 'a.created_at', 'a.user_id', 'u.first_name', 'u.email'])
      .orderBy('a.id', 'desc')
      .limit(page.limit)
      .offset(page.offset)
      .execute();
    const entries: ActivityEntry[] = rows.map((row) => ({
      id: row.uuid,
      user: { first_name: row.first_name ?? '', email: row.email ?? null },
      activity: row.activity,
      scope: row.scope,
      item_id: row.item_id,
      detail: parseJsonColumn<ActivityDetail>(row.detail, activityDetail(null, null)),
      created_at: row.created_at,
    }));
    return { total: Number(total.n), entries };
  }
}
