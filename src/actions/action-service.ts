import { NotFound } from '../errors.js';
import type { StoredKey } from '../keys/key-repository.js';
import type { Project } from '../projects/project.js';
import type { Action } from './action.js';
import { parseActionInput, type ActionBody } from './action-input.js';
import type { ActionRepository } from './action-repository.js';

/** The actions of a project: CRUD with soft deletion (a deleted action is gone for every read). */
export class ActionService {
  constructor(private readonly actions: ActionRepository) {}

  list(project: Project, page: { limit: number; offset: number }) {
    return this.actions.list(project.id, page);
  }

  async get(project: Project, id: number): Promise<Action> {
    const action = await this.actions.find(project.id, id);
    if (!action) throw new NotFound();
    return action;
  }

  async create(project: Project, key: StoredKey, body: ActionBody): Promise<Action> {
    const input = parseActionInput(body);
    return this.actions.create({
      teamId: project.id,
      name: input.name ?? null,
      description: input.description ?? '',
      steps: input.steps ?? [],
      createdById: key.user.id,
    });
  }

  async update(project: Project, id: number, body: ActionBody): Promise<Action> {
    await this.get(project, id);
    const updated = await this.actions.update(project.id, id, parseActionInput(body));
    if (!updated) throw new NotFound();
    return updated;
  }

  async delete(project: Project, id: number): Promise<void> {
    await this.get(project, id);
    await this.actions.update(project.id, id, { deleted: true });
  }
}
