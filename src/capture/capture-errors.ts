import { ApiError } from '../errors.js';

/** 400 for anything that cannot be decoded or is not a valid set of events. */
export class InvalidPayload extends ApiError {
  constructor(detail: string) {
    super(400, 'validation_error', 'invalid_payload', `Invalid payload: ${detail}`);
  }
}

export class MissingApiKey extends ApiError {
  constructor() {
    super(401, 'authentication_error', 'missing_api_key', 'API key not provided. You can find your project API key in PostHog project settings.');
  }
}

export class InvalidApiKey extends ApiError {
  constructor() {
    super(401, 'authentication_error', 'invalid_api_key', 'Project API key invalid. You can find your project API key in PostHog project settings.');
  }
}

export class CapturePayloadTooLarge extends ApiError {
  constructor(limitBytes: number) {
    super(413, 'invalid_request', 'payload_too_large', `Payload is larger than the limit of ${limitBytes} bytes.`);
  }
}
