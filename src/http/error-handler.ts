import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import FindMyWay, { type HTTPMethod } from 'find-my-way';
import { ApiError, MethodNotAllowed, NotFound, ParseError, PayloadTooLarge, UnsupportedMediaType, ValidationError, type ErrorBody } from '../errors.js';

const METHODS: HTTPMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD'];

interface SchemaValidationItem {
  instancePath?: string;
  keyword?: string;
  message?: string;
  params?: Record<string, unknown>;
}

/** `/filters/0/key` → `filters__0__key`, the way drf-exceptions-hog names nested fields. */
function attrOf(item: SchemaValidationItem): string | null {
  const segments = (item.instancePath ?? '').split('/').filter(Boolean);
  const missing = item.params?.missingProperty;
  if (typeof missing === 'string') segments.push(missing);
  return segments.length > 0 ? segments.join('__') : null;
}

function fromSchemaValidation(items: SchemaValidationItem[]): ApiError {
  const first = items[0] ?? {};
  const attr = attrOf(first);
  if (first.keyword === 'required') return new ValidationError(attr, 'This field is required.', 'required');
  return new ValidationError(attr, first.message ? `Invalid value: ${first.message}.` : 'Invalid value.');
}

/** Maps anything thrown while serving a request to PostHog's error body. */
export function toApiError(error: FastifyError & { validation?: SchemaValidationItem[] }): ApiError | null {
  if (error instanceof ApiError) return error;
  if (error.validation) return fromSchemaValidation(error.validation);
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new PayloadTooLarge(Number((error as { limit?: number }).limit) || 0);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new UnsupportedMediaType(error.message.replace(/^Unsupported Media Type:?\s*/i, ''));
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ParseError("JSON parse error - Body cannot be empty when content-type is set to 'application/json'");
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new ParseError(`JSON parse error - ${error.message}`);
  }
  if (error instanceof SyntaxError) return new ParseError(`JSON parse error - ${error.message}`);
  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500) {
    return new ApiError(status, 'invalid_request', error.code?.toLowerCase() ?? 'invalid_request', error.message);
  }
  return null;
}

/**
 * The one place errors become responses: typed errors and framework errors get PostHog's
 * `{type, code, detail, attr}`; anything else is a bug, logged, and answered 500.
 */
export function registerErrorHandling(app: FastifyInstance): void {
  const allRoutes = FindMyWay({ ignoreTrailingSlash: true, ignoreDuplicateSlashes: true });
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      if (METHODS.includes(method as HTTPMethod) && !allRoutes.find(method as HTTPMethod, route.url)) {
        allRoutes.on(method as HTTPMethod, route.url, () => undefined);
      }
    }
  });

  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const apiError = toApiError(error);
    if (apiError) {
      if (apiError.status === 405) void reply.header('Allow', allowedMethods(request.url).join(', '));
      return reply.status(apiError.status).send(apiError.toBody());
    }
    request.log.error({ err: error }, 'unhandled error');
    const body: ErrorBody = { type: 'server_error', code: 'error', detail: 'A server error occurred.', attr: null };
    return reply.status(500).send(body);
  });

  function allowedMethods(url: string): string[] {
    const path = url.split('?')[0] ?? '/';
    return METHODS.filter((method) => allRoutes.find(method, path) !== null);
  }

  app.setNotFoundHandler((request, reply) => {
    const allowed = allowedMethods(request.url);
    const error = allowed.length > 0 ? new MethodNotAllowed(request.method) : new NotFound();
    if (allowed.length > 0) void reply.header('Allow', allowed.join(', '));
    return reply.status(error.status).send(error.toBody());
  });
}
