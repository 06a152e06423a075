import { ValidationError } from '../../errors.js';
import { parseEntities, type RawInput, type SeriesEntity } from '../filter-model.js';

/** An event that disqualifies an attempt between two steps (0-based, `from` < `to`). */
export interface FunnelExclusion {
  entity: SeriesEntity;
  fromStep: number;
  toStep: number;
}

const ATTR = 'exclusions';

function stepIndex(value: unknown, name: string): number {
  const index = Number(value);
  if (value === undefined || value === null || value === '' || !Number.isInteger(index) || index < 0) {
    throw new ValidationError(ATTR, `Each exclusion needs an integer ${name}.`);
  }
  return index;
}

/**
 * PostHog refuses an exclusion that is a step of its range, or matches more than one (the same
 * event or action with no more property filters than the step).
 */
function coversStep(exclusion: SeriesEntity, step: SeriesEntity): boolean {
  if (exclusion.type !== step.type || String(exclusion.id) !== String(step.id)) return false;
  const stepFilters = new Set(step.properties.values.map((node) => JSON.stringify(node)));
  return exclusion.properties.values.every((node) => stepFilters.has(JSON.stringify(node)));
}

/**
 * `exclusions` as PostHog validates them: a step range inside the funnel, an
 * exclusion that is not one of the steps of its range, and only the full range for unordered funnels.
 */
export function parseExclusions(input: RawInput, steps: SeriesEntity[], unordered: boolean): FunnelExclusion[] {
  const raw = input.exclusions;
  if (raw === undefined || raw === null || raw === '') return [];
  let decoded: unknown = raw;
  if (typeof raw === 'string') {
    try {
      decoded = JSON.parse(raw);
    } catch {
      throw new ValidationError(ATTR, 'Invalid JSON in "exclusions".');
    }
  }
  if (!Array.isArray(decoded)) throw new ValidationError(ATTR, '"exclusions" must be a list.');
  const last = steps.length - 1;
  return decoded.map((item) => {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) throw new ValidationError(ATTR, 'Each exclusion must be an object.');
    const exclusion = item as Record<string, unknown>;
    const type = exclusion.type ?? 'events';
    if (type !== 'events' && type !== 'actions') throw new ValidationError(ATTR, 'An exclusion is an event or an action.');
    let entity: SeriesEntity;
    try {
      entity = parseEntities({ [type]: [exclusion] })[0]!;
    } catch (error) {
      if (error instanceof ValidationError) throw new ValidationError(ATTR, error.detail);
      throw error;
    }
    const fromStep = stepIndex(exclusion.funnel_from_step, 'funnel_from_step');
    const toStep = stepIndex(exclusion.funnel_to_step, 'funnel_to_step');
    if (fromStep >= toStep) throw new ValidationError(ATTR, 'Exclusion event range is invalid. End of range should be greater than start.');
    if (fromStep >= last) throw new ValidationError(ATTR, 'Exclusion event range is invalid. Start of range is greater than number of steps.');
    if (toStep > last) throw new ValidationError(ATTR, 'Exclusion event range is invalid. End of range is greater than number of steps.');
    if (unordered && (fromStep !== 0 || toStep !== last)) {
      throw new ValidationError(ATTR, 'Partial Exclusions not allowed in unordered funnels');
    }
    if (steps.slice(fromStep, toStep + 1).some((step) => coversStep(entity, step))) {
      throw new ValidationError(ATTR, "Exclusion event can't be the same as funnel step");
    }
    return { entity, fromStep, toStep };
  });
}
