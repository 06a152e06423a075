import { parseCapture } from './event-parser.js';
import { normalizeEvent, type LoggedEvent } from './normalize-event.js';
import { decodeCapturePayload, type RawCaptureRequest } from './payload-decoder.js';
import { resolveSentAt } from './timestamps.js';

export interface CaptureRequest extends RawCaptureRequest {
  ip: string | null;
  now: number;
}

/** A request's project token and its events as the capture log keeps them. */
export interface AcceptedRequest {
  token: string;
  events: LoggedEvent[];
}

/**
 * Everything capture decides from the request alone: decoding, validation (a 4xx ApiError for
 * anything invalid) and normalisation. Pure, so it can run off the main thread.
 */
export function acceptCaptureRequest(request: CaptureRequest): AcceptedRequest {
  const decoded = decodeCapturePayload(request);
  const queryToken = [request.query.token, request.query.api_key].find((value) => typeof value === 'string' && value !== '');
  const parsed = parseCapture(decoded.json, (queryToken as string | undefined) ?? decoded.formToken);
  const sentAt = resolveSentAt(parsed.bodySentAt, request.query);
  const events = parsed.events
    .map((event) => normalizeEvent(event, { now: request.now, sentAt, ip: request.ip }))
    .filter((event): event is LoggedEvent => event !== null);
  return { token: parsed.token, events };
}
