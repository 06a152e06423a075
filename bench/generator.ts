import { Random } from './random.js';

export interface GeneratedEvent {
  event: string;
  distinct_id: string;
  uuid: string;
  timestamp: string;
  properties: Record<string, unknown>;
}

export interface GeneratorOptions {
  events: number;
  distinctIds: number;
  days: number;
  /** Share of events that are $identify calls linking an anonymous id to a user id. */
  identifyShare: number;
  seed: number;
  /** The last day of generated data; events spread over the `days` before it. */
  end: Date;
  /**
   * Share of events that start a visit: the person's next events, one after the other, are a
   * walk of pageviews and often a signup-to-order sequence, as funnels and paths need; absent,
   * no visits, and the events are the same as before visits existed.
   */
  visitShare?: number;
}

const BROWSERS = ['Chrome', 'Safari', 'Firefox', 'Edge', 'Opera', 'Samsung Internet'];
const OSES = ['Mac OS X', 'Windows', 'iOS', 'Android', 'Linux'];
const PATHS = ['/', '/pricing', '/docs', '/blog', '/signup', '/login', '/features', '/about', '/careers', '/changelog'];
const CUSTOM_EVENTS = [
  'signed up',
  'logged in',
  'order placed',
  'item added',
  'item removed',
  'checkout started',
  'search performed',
  'video played',
  'file uploaded',
  'invite sent',
  'plan upgraded',
  'plan downgraded',
  'comment posted',
  'dashboard viewed',
  'report exported',
  'settings changed',
  'notification clicked',
  'feedback sent',
];
const PLANS = ['free', 'pro', 'team', 'enterprise'];
const COUNTRIES = ['US', 'GB', 'DE', 'FR', 'IN', 'BR', 'JP', 'CA'];
const COMPANIES = Array.from({ length: 200 }, (_, index) => `company-${index}`);
/** The steps of a visit after its pages, each taken with its chance once the one before was. */
const VISIT_SEQUENCE: ReadonlyArray<[string, number]> = [
  ['signed up', 0.4],
  ['item added', 0.6],
  ['checkout started', 0.7],
  ['order placed', 0.8],
];

/** A visit in progress: the events it still has to send, in order. */
interface Visit {
  distinctId: string;
  session: string;
  /** One browser and OS for the whole visit. */
  common: object;
  steps: Array<{ event: string; path: string | null }>;
}

function pageviewProperties(random: Random, common: object, path: string, session: string): Record<string, unknown> {
  return {
    ...common,
    $current_url: `https://example.com${path}`,
    $pathname: path,
    $session_id: session,
    load_ms: 50 + random.int(2000),
  };
}

function customProperties(random: Random, common: object): Record<string, unknown> {
  return {
    ...common,
    amount: Math.round(random.next() * 50_000) / 100,
    quantity: 1 + random.int(10),
    plan: random.pick(PLANS),
    $groups: { company: random.pickSkewed(COMPANIES) },
  };
}

function commonProperties(random: Random): object {
  return {
    $lib: 'posthog-node',
    $lib_version: '5.70.0',
    $geoip_disable: true,
    $browser: random.pick(BROWSERS),
    $os: random.pick(OSES),
    country: random.pick(COUNTRIES),
  };
}

/** Two to seven pages from a landing page, then as far into the signup-to-order sequence as the visitor goes. */
function visitSteps(random: Random): Visit['steps'] {
  const steps: Visit['steps'] = [];
  const pages = 2 + random.int(6);
  for (let page = 0; page < pages; page++) steps.push({ event: '$pageview', path: page === 0 && random.next() < 0.5 ? '/' : random.pickSkewed(PATHS) });
  for (const [event, chance] of VISIT_SEQUENCE) {
    if (random.next() >= chance) break;
    steps.push({ event, path: null });
  }
  return steps;
}

/** The visit's next event, at the time of its index: a visit's events keep their order. */
function visitEvent(random: Random, visit: Visit, timeMs: number): GeneratedEvent {
  const step = visit.steps.shift()!;
  return {
    event: step.event,
    distinct_id: visit.distinctId,
    uuid: random.uuidAt(timeMs),
    timestamp: new Date(timeMs).toISOString(),
    properties: step.path === null ? customProperties(random, visit.common) : pageviewProperties(random, visit.common, step.path, visit.session),
  };
}

/**
 * Deterministic PostHog-shaped traffic: pageviews with URLs and browsers, 18 custom events with
 * numeric and string properties (20 event names in all with $pageview and $identify),
 * identify flows from anonymous ids to user ids, company groups and, with `visitShare`, visits.
 */
export function* generateEvents(options: GeneratorOptions): Generator<GeneratedEvent> {
  const random = new Random(options.seed);
  const endMs = options.end.getTime();
  const spanMs = options.days * 86_400_000;
  let visit: Visit | null = null;
  for (let index = 0; index < options.events; index++) {
    const indexTime = endMs - spanMs + Math.floor((index / options.events) * spanMs);
    if (visit) {
      yield visitEvent(random, visit, indexTime);
      if (visit.steps.length === 0) visit = null;
      continue;
    }
    const user = Math.floor(options.distinctIds * random.next() ** 2);
    const userId = `user-${user}`;
    const time = indexTime + random.int(60_000);
    const timestamp = new Date(time).toISOString();
    const uuid = random.uuidAt(time);
    const common = commonProperties(random);
    if (random.next() < options.identifyShare) {
      yield {
        event: '$identify',
        distinct_id: userId,
        uuid,
        timestamp,
        properties: {
          ...common,
          $anon_distinct_id: `anon-${user}`,
          $set: { email: `user${user}@example.com`, plan: random.pick(PLANS), age: 18 + random.int(60) },
        },
      };
      continue;
    }
    const distinctId = random.next() < 0.3 ? `anon-${user}` : userId;
    if (options.visitShare !== undefined && random.next() < options.visitShare) {
      visit = { distinctId, session: `visit-${user}-${index}`, common, steps: visitSteps(random) };
      yield visitEvent(random, visit, indexTime);
      continue;
    }
    if (random.next() < 0.5) {
      const path = random.pickSkewed(PATHS);
      yield {
        event: '$pageview',
        distinct_id: distinctId,
        uuid,
        timestamp,
        properties: pageviewProperties(random, common, path, `session-${user}-${Math.floor(index / 50)}`),
      };
      continue;
    }
    yield {
      event: random.pickSkewed(CUSTOM_EVENTS),
      distinct_id: distinctId,
      uuid,
      timestamp,
      properties: customProperties(random, common),
    };
  }
}
