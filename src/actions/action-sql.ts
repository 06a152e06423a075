import { elementCondition } from '../query/element-filters.js';
import { parseProperties, type PropertyFilter } from '../query/property-filter-model.js';
import { compilePropertyFilters, eventPropertyValue, isUsableRegex, type PropertyColumns } from '../query/property-filters.js';
import type { ActionSqlResolver, CohortSqlResolver, ResolvedAction } from '../query/resolvers.js';
import type { SqlParams } from '../query/sql-params.js';
import type { ActionStep, StringMatching } from './action.js';
import type { ActionRepository } from './action-repository.js';
import { boundTeamId } from './bound-team.js';

/** The event-name column of `events AS e`, the source every event query reads. */
const EVENT_NAME = 'e.event';

function elementFilter(key: 'selector' | 'tag_name' | 'text' | 'href', value: string, matching: StringMatching | null): PropertyFilter {
  const operator = matching === 'regex' ? 'regex' : matching === 'contains' ? 'icontains' : 'exact';
  return { kind: 'filter', type: 'element', key, value, operator, groupTypeIndex: null, negation: false };
}

function urlCondition(url: string, matching: StringMatching | null, columns: PropertyColumns, params: SqlParams): string {
  const current = eventPropertyValue(columns, '$current_url', params);
  if (matching === 'exact') return `${current} = ${params.add(url, 'String')}`;
  if (matching === 'regex') return isUsableRegex(url) ? `match(${current}, ${params.add(url, 'String')})` : '0';
  return `position(${current}, ${params.add(url, 'String')}) > 0`;
}

/**
 * Compiles an action to one condition on an events row: the OR of its steps, each the AND of
 * its event name, url, element and property conditions (PostHog's action matching).
 */
export class ActionSqlCompiler implements ActionSqlResolver {
  constructor(
    private readonly actions: ActionRepository,
    private readonly cohorts: CohortSqlResolver,
  ) {}

  async resolve(actionId: number, columns: PropertyColumns, params: SqlParams): Promise<ResolvedAction | null> {
    const action = await this.actions.find(boundTeamId(params), actionId);
    if (!action) return null;
    const steps: string[] = [];
    for (const step of action.steps) steps.push(await this.stepCondition(step, columns, params));
    return { name: action.name ?? '', condition: steps.length === 0 ? '0' : steps.map((step) => `(${step})`).join(' OR ') };
  }

  async actionName(actionId: number, teamId: number): Promise<string | null> {
    const action = await this.actions.find(teamId, actionId);
    return action ? (action.name ?? '') : null;
  }

  private async stepCondition(step: ActionStep, columns: PropertyColumns, params: SqlParams): Promise<string> {
    const parts: string[] = [];
    if (step.event !== null) parts.push(`${EVENT_NAME} = ${params.add(step.event, 'String')}`);
    if (step.url !== null) parts.push(urlCondition(step.url, step.url_matching, columns, params));
    const elements: PropertyFilter[] = [];
    if (step.selector !== null) elements.push(elementFilter('selector', step.selector, 'exact'));
    if (step.tag_name !== null) elements.push(elementFilter('tag_name', step.tag_name, 'exact'));
    if (step.text !== null) elements.push(elementFilter('text', step.text, step.text_matching));
    if (step.href !== null) elements.push(elementFilter('href', step.href, step.href_matching));
    for (const filter of elements) parts.push(elementCondition(filter, columns.elementsChain, params));
    const properties = await compilePropertyFilters(parseProperties(step.properties, 'steps'), {
      columns,
      params,
      cohorts: this.cohorts,
    });
    if (properties !== '1') parts.push(properties);
    return parts.length === 0 ? '1' : parts.map((part) => `(${part})`).join(' AND ');
  }
}
