import http from 'node:http';
import type { TallyServer } from '../test/support/tally.js';

/**
 * One connection kept open across calls, as a dashboard or a script making many calls keeps it.
 * The timed calls use node:http rather than the global fetch because fetch itself adds about a
 * millisecond per call on this machine (measured against this client on the same server), which
 * is the client's cost, not the server's, and would be charged to Tally in every ratio.
 */
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

export interface TimedAnswer {
  status: number;
  text: string;
}

/** A call to the server's API with its personal API key, the body read whole. */
export function callApi(server: TallyServer, method: 'GET' | 'POST', pathname: string, body?: unknown): Promise<TimedAnswer> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const headers: Record<string, string> = { authorization: `Bearer ${server.personalApiKey}` };
  if (payload !== undefined) headers['content-type'] = 'application/json';
  return new Promise((resolve, reject) => {
    const request = http.request(server.url + pathname, { method, headers, agent }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end(payload);
  });
}
