import type { FastifyRequest } from 'fastify';
import type { Project } from '../projects/project.js';

/** The project the auth hook resolved; routes under /api/projects/:project_id always have one. */
export function requireProject(request: FastifyRequest): Project {
  if (!request.project) throw new Error(`route ${request.routeOptions.url} has no resolved project`);
  return request.project;
}
