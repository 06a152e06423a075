import type { TallyServer } from './tally.js';

export type EventInput = Record<string, unknown> & { event: string };

/** Posts events to /batch the way posthog-node does, without sent_at unless given. */
export async function sendBatch(server: TallyServer, batch: EventInput[], extra: Record<string, unknown> = {}) {
  const response = await server.request('POST', '/batch/', {
    key: null,
    body: { api_key: server.projectToken, batch, ...extra },
  });
  if (response.status !== 200) throw new Error(`capture answered ${response.status}: ${response.text}`);
  return response;
}
