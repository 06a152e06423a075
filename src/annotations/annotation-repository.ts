import { sql, type Expression, type ExpressionBuilder, type Selectable, type SqlBool } from 'kysely';
import { CREATOR_COLUMNS, creatorOf, type CreatorRow } from '../actions/creator.js';
import { containsEveryTerm } from '../definitions/name-sql.js';
import type { CatalogDb } from '../storage/catalog/catalog.js';
import type { AnnotationTable, CatalogSchema, DashboardTable, InsightTable } from '../storage/catalog/schema.js';
import { nowIso } from '../util/time.js';
import type { Annotation, AnnotationScope, CreationType } from './annotation.js';
import type { AnnotationListQuery } from './annotation-list-query.js';
import type { AnnotationInput } from './annotation-input.js';

/** The project an annotation is read from: its own, and its organization's shared ones. */
export interface AnnotationViewer {
  teamId: number;
  organizationId: string;
}

export interface NewAnnotation {
  teamId: number;
  organizationId: string;
  content: string | null;
  dateMarker: string | null;
  creationType: CreationType;
  insightId: number | null;
  dashboardId: number | null;
  scope: AnnotationScope;
  createdById: number;
}

/** What an update changes: the writable fields, as a request gives them. */
export type AnnotationChanges = AnnotationInput;

/** A left-joined table: every column may be null. */
type Joined<T> = { [K in keyof T]: T[K] | null };

type AnnotationScopeBuilder = ExpressionBuilder<CatalogSchema & { a: AnnotationTable; i: Joined<InsightTable>; d: Joined<DashboardTable> }, 'a' | 'i' | 'd'>;

/**
 * Catalog SQL for annotations. A project sees its own and its organization's
 * organization-scoped ones; one attached to a deleted insight or dashboard is hidden.
 */
export class AnnotationRepository {
  constructor(private readonly db: CatalogDb) {}

  private select() {
    return this.db
      .selectFrom('annotations as a')
      .leftJoin('users as u', 'u.id', 'a.created_by_id')
      .leftJoin('insights as i', 'i.id', 'a.insight_id')
      .leftJoin('dashboards as d', 'd.id', 'a.dashboard_id')
      .selectAll('a')
      .select(CREATOR_COLUMNS)
      .select(['i.short_id as insight_short_id', 'i.name as insight_name', 'i.derived_name as insight_derived_name', 'd.name as dashboard_name']);
  }

  async create(input: NewAnnotation): Promise<number> {
    const now = nowIso();
    const row = await this.db
      .insertInto('annotations')
      .values({
        team_id: input.teamId,
        organization_id: input.organizationId,
        content: input.content,
        date_marker: input.dateMarker,
        creation_type: input.creationType,
        insight_id: input.insightId,
        dashboard_id: input.dashboardId,
        scope: input.scope,
        deleted: 0,
        created_by_id: input.createdById,
        created_at: now,
        updated_at: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return Number(row.id);
  }

  async find(viewer: AnnotationViewer, id: number, options: { includeDeleted?: boolean } = {}): Promise<Annotation | undefined> {
    const row = await this.select()
      .where((eb) => eb.and(visible(eb, viewer, options.includeDeleted ?? false)))
      .where('a.id', '=', id)
      .executeTakeFirst();
    return row && toAnnotation(row);
  }

  /** Newest date_marker first (annotations without one before all others, as PostgreSQL sorts NULL), then newest id. */
  async list(viewer: AnnotationViewer, filter: AnnotationListQuery, page: { limit: number; offset: number }) {
    const where = (eb: AnnotationScopeBuilder) => eb.and([...visible(eb, viewer, false), ...listConditions(eb, filter)]);
    const total = await this.db
      .selectFrom('annotations as a')
      .leftJoin('insights as i', 'i.id', 'a.insight_id')
      .leftJoin('dashboards as d', 'd.id', 'a.dashboard_id')
      .where(where)
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    const rows = await this.select()
      .where(where)
      .orderBy(sql`a.date_marker is null`, 'desc')
      .orderBy('a.date_marker', 'desc')
      .orderBy('a.id', 'desc')
      .limit(page.limit)
      .offset(page.offset)
      .execute();
    return { total: Number(total.n), annotations: rows.map(toAnnotation) };
  }

  async update(id: number, changes: AnnotationChanges): Promise<void> {
    const values: Record<string, unknown> = { updated_at: nowIso() };
    if (changes.content !== undefined) values.content = changes.content;
    if (changes.dateMarker !== undefined) values.date_marker = changes.dateMarker;
    if (changes.creationType !== undefined) values.creation_type = changes.creationType;
    if (changes.insightId !== undefined) values.insight_id = changes.insightId;
    if (changes.dashboardId !== undefined) values.dashboard_id = changes.dashboardId;
    if (changes.scope !== undefined) values.scope = changes.scope;
    if (changes.deleted !== undefined) values.deleted = changes.deleted ? 1 : 0;
    await this.db.updateTable('annotations').set(values).where('id', '=', id).execute();
  }
}

function visible(eb: AnnotationScopeBuilder, viewer: AnnotationViewer, includeDeleted: boolean): Expression<SqlBool>[] {
  const conditions: Expression<SqlBool>[] = [
    eb.or([eb('a.team_id', '=', viewer.teamId), eb.and([eb('a.scope', '=', 'organization'), eb('a.organization_id', '=', viewer.organizationId)])]),
    eb.or([eb('a.insight_id', 'is', null), eb('i.deleted', '=', 0)]),
    eb.or([eb('a.dashboard_id', 'is', null), eb('d.deleted', '=', 0)]),
  ];
  if (!includeDeleted) conditions.push(eb('a.deleted', '=', 0));
  return conditions;
}

function listConditions(eb: AnnotationScopeBuilder, filter: AnnotationListQuery): Expression<SqlBool>[] {
  const conditions: Expression<SqlBool>[] = [];
  if (filter.scope !== null) conditions.push(eb('a.scope', '=', filter.scope));
  if (filter.searchTerms.length > 0) conditions.push(containsEveryTerm('a.content', filter.searchTerms));
  if (filter.dateFrom !== null) conditions.push(eb('a.date_marker', '>=', filter.dateFrom));
  if (filter.dateTo !== null) conditions.push(eb('a.date_marker', '<=', filter.dateTo));
  return conditions;
}

type AnnotationRow = Selectable<AnnotationTable> &
  CreatorRow & {
    insight_short_id: string | null;
    insight_name: string | null;
    insight_derived_name: string | null;
    dashboard_name: string | null;
  };

function toAnnotation(row: AnnotationRow): Annotation {
  return {
    id: Number(row.id),
    teamId: Number(row.team_id),
    content: row.content,
    dateMarker: row.date_marker,
    creationType: row.creation_type as CreationType,
    scope: row.scope as AnnotationScope,
    insight:
      row.insight_id === null || row.insight_short_id === null
        ? null
        : { id: Number(row.insight_id), shortId: row.insight_short_id, name: row.insight_name, derivedName: row.insight_derived_name },
    dashboard: row.dashboard_id === null ? null : { id: Number(row.dashboard_id), name: row.dashboard_name },
    deleted: Number(row.deleted) === 1,
    createdBy: creatorOf(row),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
