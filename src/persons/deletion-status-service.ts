import { ValidationError } from '../errors.js';
import { stringParam } from '../util/request-params.js';
import type { Project } from '../projects/project.js';
import type { DeletionStatusFilter, DeletionTask, DeletionTaskQuery, DeletionTaskRepository } from './deletion-task-repository.js';
import { isUuid } from './person-id.js';

/** A task as `GET /persons/deletion_status/` shows it. */
export interface DeletionStatusView {
  person_uuid: string;
  created_at: string;
  status: 'pending' | 'completed';
  delete_verified_at: string | null;
}

/** The filter parameters of `GET /persons/deletion_status/`: a repeated one arrives as a list. */
export type DeletionStatusParams = {
  status?: string | string[];
  person_uuid?: string | string[];
};

const STATUSES: DeletionStatusFilter[] = ['pending', 'completed', 'all'];

export function readDeletionStatusQuery(project: Project, query: DeletionStatusParams): DeletionTaskQuery {
  const status = stringParam(query, 'status') || 'all';
  if (!STATUSES.includes(status as DeletionStatusFilter)) {
    throw new ValidationError('status', `"${status}" is not a valid choice.`, 'invalid_choice');
  }
  const personUuid = stringParam(query, 'person_uuid') || null;
  if (personUuid !== null && !isUuid(personUuid)) throw new ValidationError('person_uuid', 'Must be a valid UUID.', 'invalid');
  return { teamId: project.id, status: status as DeletionStatusFilter, personUuid: personUuid?.toLowerCase() ?? null };
}

function toView(task: DeletionTask): DeletionStatusView {
  return {
    person_uuid: task.personUuid,
    created_at: task.createdAt,
    status: task.deleteVerifiedAt === null ? 'pending' : 'completed',
    delete_verified_at: task.deleteVerifiedAt,
  };
}

export class DeletionStatusService {
  constructor(private readonly tasks: DeletionTaskRepository) {}

  async list(query: DeletionTaskQuery, page: { limit: number; offset: number }) {
    const { total, tasks } = await this.tasks.list(query, page);
    return { total, views: tasks.map(toView) };
  }
}
