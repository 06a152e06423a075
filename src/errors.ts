/**
 * Typed API errors. The HTTP layer maps each to PostHog's `{type, code, detail, attr}` body
 * in one place (src/http/error-handler.ts); services throw these and never see HTTP.
 */
export type ErrorType = 'validation_error' | 'authentication_error' | 'invalid_request' | 'throttled_error' | 'server_error';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly type: ErrorType,
    readonly code: string,
    readonly detail: string,
    readonly attr: string | null = null,
  ) {
    super(detail);
  }

  toBody(): ErrorBody {
    return { type: this.type, code: this.code, detail: this.detail, attr: this.attr };
  }
}

export interface ErrorBody {
  type: ErrorType;
  code: string;
  detail: string;
  attr: string | null;
}

export class ValidationError extends ApiError {
  constructor(attr: string | null, detail: string, code = 'invalid_input') {
    super(400, 'validation_error', code, detail, attr);
  }
}

export class RequiredFieldError extends ValidationError {
  constructor(attr: string) {
    super(attr, 'This field is required.', 'required');
  }
}

export class NotAuthenticated extends ApiError {
  constructor() {
    super(401, 'authentication_error', 'not_authenticated', 'Authentication credentials were not provided.');
  }
}

export class AuthenticationFailed extends ApiError {
  constructor(detail: string) {
    super(401, 'authentication_error', 'authentication_failed', detail);
  }
}

export class PermissionDenied extends ApiError {
  constructor(detail: string) {
    super(403, 'authentication_error', 'permission_denied', detail);
  }
}

export class NotFound extends ApiError {
  constructor() {
    super(404, 'invalid_request', 'not_found', 'Not found.');
  }
}

export class MethodNotAllowed extends ApiError {
  constructor(method: string) {
    super(405, 'invalid_request', 'method_not_allowed', `Method "${method}" not allowed.`);
  }
}

export class ParseError extends ApiError {
  constructor(detail: string) {
    super(400, 'invalid_request', 'parse_error', detail);
  }
}

export class UnsupportedMediaType extends ApiError {
  constructor(mediaType: string) {
    super(415, 'invalid_request', 'unsupported_media_type', `Unsupported media type "${mediaType}" in request.`);
  }
}

export class PayloadTooLarge extends ApiError {
  constructor(limitBytes: number) {
    super(413, 'invalid_request', 'payload_too_large', `Request body is larger than the limit of ${limitBytes} bytes.`);
  }
}
