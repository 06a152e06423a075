import { parentPort } from 'node:worker_threads';
import { ApiError } from '../errors.js';
import { acceptCaptureRequest, type CaptureRequest } from './accept-request.js';
import { serializeLoggedEvents } from './logged-events-json.js';
import type { DecodeReply, DecodeTask } from './request-decoder.js';

/** The decoding thread: accepts requests in the order they come and answers each. */
parentPort!.on('message', (task: DecodeTask) => {
  let reply: DecodeReply;
  try {
    const { body } = task.request;
    const request: CaptureRequest = { ...task.request, body: Buffer.from(body.buffer, body.byteOffset, body.byteLength) };
    const accepted = acceptCaptureRequest(request);
    const serialized = serializeLoggedEvents(accepted.events);
    reply = {
      id: task.id,
      token: accepted.token,
      eventCount: accepted.events.length,
      eventsJson: serialized.json,
      propertiesSpans: serialized.propertiesSpans,
    };
  } catch (error) {
    reply =
      error instanceof ApiError
        ? { id: task.id, apiError: { status: error.status, type: error.type, code: error.code, detail: error.detail, attr: error.attr } }
        : { id: task.id, failure: error instanceof Error ? (error.stack ?? error.message) : String(error) };
  }
  parentPort!.postMessage(reply);
});
