import type { PropertyFilterInput } from './test-account-filters.js';

export interface Project {
  id: number;
  uuid: string;
  organizationId: string;
  name: string;
  apiToken: string;
  timezone: string;
  /** 0 = weeks start on Sunday (PostHog's default), 1 = Monday. */
  weekStartDay: 0 | 1 | null;
  testAccountFilters: PropertyFilterInput[];
  personDisplayNameProperties: string[] | null;
  ingestedEvent: boolean;
  createdAt: string;
  updatedAt: string;
}
