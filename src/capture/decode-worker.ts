import { parentPort } from 'node:worker_threads';
import { ApiError } from '../errors.js';
import { acceptCaptureRequest, type CaptureRequest } from './accept-request.js';
import { loggedEventsBytes } from './capture-log.js';
import { serializeLoggedEvents } from './logged-events-json.js';
import type { DecodeReply, DecodeTask } from './request-decoder.js';

/** The decoding thread: accepts requests in the order they come and answers each. */
parentPort!.on('message', (task: DecodeTask) => {
  let reply: DecodeReply;
  // The events and spans move to the main thread without a copy.
  let transfer: ArrayBuffer[] = [];
  try {
    const { body } = task.request;
    const request: CaptureRequest = { ...task.request, body: Buffer.from(body.buffer, body.byteOffset, body.byteLength) };
    const accepted = acceptCaptureRequest(request);
    const serialized = serializeLoggedEvents(accepted.events);
    const events = loggedEventsBytes(serialized.json);
    const spans = serialized.propertiesSpans;
    reply = { id: task.id, token: accepted.token, eventCount: accepted.events.length, events, propertiesSpans: spans };
    transfer = spans ? [events.buffer, spans.buffer] : [events.buffer];
  } catch (error) {
    reply =
      error instanceof ApiError
        ? { id: task.id, apiError: { status: error.status, type: error.type, code: error.code, detail: error.detail, attr: error.attr } }
        : { id: task.id, failure: error instanceof Error ? (error.stack ?? error.message) : String(error) };
  }
  parentPort!.postMessage(reply, transfer);
});
