import type { KyselyPlugin, PluginTransformQueryArgs, PluginTransformResultArgs, QueryResult, RootOperationNode, UnknownRow } from 'kysely';
import type { TimeSlices } from '../../util/yield.js';

/**
 * Pauses after each statement once the time slice is spent. Long catalog work (a batch's person
 * writes run thousands of rows in statements of a few hundred) then holds the event loop for a
 * slice at most; inside a transaction the connection stays held, so a query from elsewhere waits
 * for the transaction to end, as it always did.
 */
export class PauseBetweenQueries implements KyselyPlugin {
  constructor(private readonly slices: TimeSlices) {}

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    return args.node;
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    await this.slices.pause();
    return args.result;
  }
}
