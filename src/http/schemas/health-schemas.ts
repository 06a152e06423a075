import { Type } from 'typebox';

/** Ingestion as the health checks report it. */
export const IngestionHealthBody = Type.Object({
  lag_s: Type.Number({ description: 'Seconds the oldest acknowledged, unprocessed event has waited' }),
  backlog: Type.Integer({ description: 'Acknowledged events not processed yet' }),
  failing: Type.Boolean({ description: 'Events wait and none was processed for longer than TALLY_INGESTION_STALL_S' }),
});

/** `/_health`'s answer: `{"status":"ok"}` while healthy; the stalled ingestion's numbers with a 503. */
export const HealthBody = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('ingestion_stalled'), Type.Literal('store_unavailable')]),
  ingestion: Type.Optional(IngestionHealthBody),
});
