import type { DashboardRepository } from '../dashboards/dashboard-repository.js';
import { NotFound, ValidationError } from '../errors.js';
import type { StoredKey } from '../keys/key-repository.js';
import type { Project } from '../projects/project.js';
import type { SavedInsightRepository } from '../saved-insights/saved-insight-repository.js';
import type { Annotation } from './annotation.js';
import { parseAnnotationInput, type AnnotationInput } from './annotation-input.js';
import type { AnnotationListQuery } from './annotation-list-query.js';
import type { AnnotationRepository, AnnotationViewer } from './annotation-repository.js';

function viewerOf(project: Project): AnnotationViewer {
  return { teamId: project.id, organizationId: project.organizationId };
}

/** Annotations of a project and its organization: CRUD with soft delete. */
export class AnnotationService {
  constructor(
    private readonly annotations: AnnotationRepository,
    private readonly insights: SavedInsightRepository,
    private readonly dashboards: DashboardRepository,
  ) {}

  list(project: Project, query: AnnotationListQuery, page: { limit: number; offset: number }) {
    return this.annotations.list(viewerOf(project), query, page);
  }

  async get(project: Project, id: number): Promise<Annotation> {
    const annotation = await this.annotations.find(viewerOf(project), id);
    if (!annotation) throw new NotFound();
    return annotation;
  }

  async create(project: Project, key: StoredKey, body: unknown): Promise<Annotation> {
    const input = parseAnnotationInput(body);
    await this.checkAttachments(project, input);
    const insightId = input.insightId ?? null;
    const dashboardId = input.dashboardId ?? null;
    const id = await this.annotations.create({
      teamId: project.id,
      organizationId: project.organizationId,
      content: input.content ?? null,
      dateMarker: input.dateMarker ?? null,
      creationType: input.creationType ?? 'USR',
      insightId,
      dashboardId,
      // PostHog defaults to dashboard_item whatever is attached; Tally scopes to what is attached.
      scope: input.scope ?? (insightId !== null ? 'dashboard_item' : dashboardId !== null ? 'dashboard' : 'project'),
      createdById: key.user.id,
    });
    return this.get(project, id);
  }

  async update(project: Project, id: number, body: unknown): Promise<Annotation> {
    const input = parseAnnotationInput(body);
    const viewer = viewerOf(project);
    // A deleted annotation is found only by the PATCH that restores it.
    const annotation = await this.annotations.find(viewer, id, { includeDeleted: input.deleted === false });
    if (!annotation) throw new NotFound();
    await this.checkAttachments(project, input);
    await this.annotations.update(id, input);
    const updated = await this.annotations.find(viewer, id, { includeDeleted: true });
    if (!updated) throw new NotFound();
    return updated;
  }

  /** An insight or dashboard must be a live one of the path's project. */
  private async checkAttachments(project: Project, input: AnnotationInput): Promise<void> {
    const { insightId, dashboardId } = input;
    if (insightId !== undefined && insightId !== null && !(await this.insights.liveIds(project.id, [insightId])).has(insightId)) {
      throw new ValidationError('dashboard_item', `Invalid pk "${insightId}" - object does not exist.`, 'does_not_exist');
    }
    if (dashboardId !== undefined && dashboardId !== null && !(await this.dashboards.liveIds(project.id, [dashboardId])).has(dashboardId)) {
      throw new ValidationError('dashboard_id', 'Dashboard not found.', 'does_not_exist');
    }
  }
}
