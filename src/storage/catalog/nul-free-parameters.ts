import {
  OperationNodeTransformer,
  PrimitiveValueListNode,
  ValueNode,
  type KyselyPlugin,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryResult,
  type RootOperationNode,
  type UnknownRow,
} from 'kysely';
import { replaceNul } from '../../util/nul.js';

const holdsNul = (value: unknown): value is string => typeof value === 'string' && value.includes('\u0000');

/** Rewrites every bound string that holds U+0000: single values and the rows of lists alike. */
class NulReplacer extends OperationNodeTransformer {
  protected override transformValue(node: ValueNode): ValueNode {
    return holdsNul(node.value) ? ValueNode.create(replaceNul(node.value)) : node;
  }

  protected override transformPrimitiveValueList(node: PrimitiveValueListNode): PrimitiveValueListNode {
    if (!node.values.some(holdsNul)) return node;
    return PrimitiveValueListNode.create(node.values.map((value) => (holdsNul(value) ? replaceNul(value) : value)));
  }
}

/**
 * PostgreSQL text cannot hold U+0000: a parameter holding one fails its statement, so a cohort,
 * action or description named with one would answer 500. Every string parameter has U+FFFD in
 * its place instead (`replaceNul`), the character capture already stores for it; a lookup by
 * such a name is rewritten the same way, so it still finds what was stored.
 */
export class NulFreeParameters implements KyselyPlugin {
  private readonly replacer = new NulReplacer();

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    return this.replacer.transformNode(args.node);
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result;
  }
}
