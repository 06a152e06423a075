import type { FunnelBucket, FunnelStepCount } from './funnel-results.js';

/** The bucket as a step shows it (`breakdown`: a cohort's name) and as its actors select it (`breakdown_value`). */
export function bucketFields(bucket: FunnelBucket): { breakdown: unknown; breakdown_value: unknown } {
  switch (bucket.kind) {
    case 'values':
      return { breakdown: bucket.values, breakdown_value: bucket.values };
    case 'group':
      return { breakdown: bucket.value, breakdown_value: bucket.value };
    case 'cohort':
      return { breakdown: bucket.name, breakdown_value: bucket.cohortId };
  }
}

/** A step's names: its event or action, or "Completed N steps" in an unordered funnel. */
export function stepNames(step: FunnelStepCount, unordered: boolean): { action_id: unknown; name: unknown; custom_name: unknown } {
  if (unordered) return { action_id: null, name: `Completed ${step.index + 1} step${step.index > 0 ? 's' : ''}`, custom_name: null };
  const { entity } = step;
  if (entity.type === 'actions') return { action_id: Number(entity.id), name: entity.name, custom_name: entity.customName };
  return { action_id: entity.id, name: entity.id, custom_name: entity.customName };
}
