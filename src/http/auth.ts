import type { FastifyRequest } from 'fastify';
import { AuthenticationFailed, NotAuthenticated, PermissionDenied } from '../errors.js';
import type { StoredKey } from '../keys/key-repository.js';
import type { KeyService } from '../keys/key-service.js';
import { grantsScope, type Scope } from '../keys/scopes.js';
import type { Project } from '../projects/project.js';
import type { ProjectService } from '../projects/project-service.js';

declare module 'fastify' {
  interface FastifyRequest {
    apiKey: StoredKey | null;
    project: Project | null;
  }
  interface FastifyContextConfig {
    /** Scopes a personal API key must grant (all of them) to call the route. */
    scopes?: Scope[];
    /** The route is about the calling key or its user, not a project: keys limited to projects may call it. */
    allowProjectScopedKeys?: boolean;
  }
}

type KeySource = 'Authorization header' | 'body' | 'query string';

const BEARER = /^Bearer\s+(\S.+)$/;

/** PostHog's order: the Authorization header, then a body field, then the query string. */
function findKey(request: FastifyRequest): { value: string; source: KeySource } | null {
  const header = request.headers.authorization;
  if (typeof header === 'string') {
    const match = BEARER.exec(header.trim());
    if (match?.[1]) return { value: match[1].trim(), source: 'Authorization header' };
  }
  const body = request.body;
  if (body && typeof body === 'object' && !Array.isArray(body)) {
    const value = (body as Record<string, unknown>).personal_api_key;
    if (typeof value === 'string' && value !== '') return { value, source: 'body' };
  }
  const query = request.query as Record<string, unknown> | undefined;
  const value = query?.personal_api_key;
  if (typeof value === 'string' && value !== '') return { value, source: 'query string' };
  return null;
}

/**
 * Authenticates an /api request and enforces its route's scopes and project access.
 * Runs once the body is parsed (so a key in the JSON body can be read) and before it is validated.
 */
export function apiAuthHook(keys: KeyService, projects: ProjectService) {
  return async function authenticate(request: FastifyRequest): Promise<void> {
    const found = findKey(request);
    if (!found) throw new NotAuthenticated();
    const key = await keys.authenticate(found.value);
    if (!key) throw new AuthenticationFailed(`Personal API key found in request ${found.source} is invalid.`);
    request.apiKey = key;

    for (const scope of request.routeOptions.config.scopes ?? []) {
      if (!grantsScope(key.scopes, scope)) throw new PermissionDenied(`API key missing required scope '${scope}'`);
    }

    const projectId = (request.params as Record<string, string> | undefined)?.project_id;
    if (projectId !== undefined) {
      request.project = await projects.accessibleProject(key, projectId);
    } else if (key.scopedTeams && key.scopedTeams.length > 0 && !request.routeOptions.config.allowProjectScopedKeys) {
      throw new PermissionDenied('API keys with scoped projects are only supported on project-based endpoints.');
    }
  };
}
