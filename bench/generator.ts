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
}

const BROWSERS = ['Chrome', 'Safari', 'Firefox', 'Edge', 'Opera', 'Samsung Internet'];
const OSES = ['Mac OS X', 'Windows', 'iOS', 'Android', 'Linux'];
const PATHS = ['/', '/pricing', '/docs', '/blog', '/signup', '/login', '/features', '/about', '/careers', '/changelog'];
const CUSTOM_EVENTS = [
  'signed up', 'logged in', 'order placed', 'item added', 'item removed', 'checkout started', 'search performed',
  'video played', 'file uploaded', 'invite sent', 'plan upgraded', 'plan downgraded', 'comment posted',
  'dashboard viewed', 'report exported', 'settings changed', 'notification clicked', 'feedback sent',
];
const PLANS = ['free', 'pro', 'team', 'enterprise'];
const COUNTRIES = ['US', 'GB', 'DE', 'FR', 'IN', 'BR', 'JP', 'CA'];
const COMPANIES = Array.from({ length: 200 }, (_, index) => `company-${index}`);

/**
 * Deterministic PostHog-shaped traffic: pageviews with URLs and browsers, 18 custom events with
 * numeric and string properties (20 event names in all with $pageview and $identify),
 * identify flows from anonymous ids to user ids, and company groups.
 */
export function* generateEvents(options: GeneratorOptions): Generator<GeneratedEvent> {
  const random = new Random(options.seed);
  const endMs = options.end.getTime();
  const spanMs = options.days * 86_400_000;
  for (let index = 0; index < options.events; index++) {
    const user = Math.floor(options.distinctIds * random.next() ** 2);
    const userId = `user-${user}`;
    const time = endMs - spanMs + Math.floor((index / options.events) * spanMs) + random.int(60_000);
    const timestamp = new Date(time).toISOString();
    const uuid = random.uuidAt(time);
    const common = {
      $lib: 'posthog-node',
      $lib_version: '5.70.0',
      $geoip_disable: true,
      $browser: random.pick(BROWSERS),
      $os: random.pick(OSES),
      country: random.pick(COUNTRIES),
    };
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
    if (random.next() < 0.5) {
      const path = random.pickSkewed(PATHS);
      yield {
        event: '$pageview',
        distinct_id: distinctId,
        uuid,
        timestamp,
        properties: {
          ...common,
          $current_url: `https://example.com${path}`,
          $pathname: path,
          $session_id: `session-${user}-${Math.floor(index / 50)}`,
          load_ms: 50 + random.int(2000),
        },
      };
      continue;
    }
    yield {
      event: random.pickSkewed(CUSTOM_EVENTS),
      distinct_id: distinctId,
      uuid,
      timestamp,
      properties: {
        ...common,
        amount: Math.round(random.next() * 50_000) / 100,
        quantity: 1 + random.int(10),
        plan: random.pick(PLANS),
        $groups: { company: random.pickSkewed(COMPANIES) },
      },
    };
  }
}
