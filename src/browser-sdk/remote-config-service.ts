import { NotFound, ValidationError } from '../errors.js';
import type { ProjectRepository } from '../projects/project-repository.js';

/** Project tokens are `phc_…`; PostHog's oldest are random text with `_` and `-`. */
const TOKEN = /^[A-Za-z0-9_-]{1,200}$/;

/**
 * What posthog-js reads on every page load to decide which of its features to turn on. Tally
 * stores events, persons and groups, and has no replay, surveys, site apps, heatmaps or flags,
 * so those stay off; autocapture stays on (posthog-js captures nothing automatically until a
 * config says it may) and every request may be gzipped.
 */
export interface RemoteConfig {
  token: string;
  supportedCompression: string[];
  hasFeatureFlags: boolean;
  captureDeadClicks: boolean;
  capturePerformance: boolean;
  autocapture_opt_out: boolean;
  autocaptureExceptions: boolean;
  analytics: { endpoint: string };
  elementsChainAsString: boolean;
  sessionRecording: boolean;
  errorTracking: { autocaptureExceptions: boolean; suppressionRules: unknown[] };
  heatmaps: boolean;
  surveys: boolean;
  conversations: boolean;
  defaultIdentifiedOnly: boolean;
  siteApps: unknown[];
}

export class RemoteConfigService {
  constructor(private readonly projects: ProjectRepository) {}

  async config(token: string): Promise<RemoteConfig> {
    if (!TOKEN.test(token)) throw new ValidationError('token', 'Invalid token');
    // A personal API key is never a project token, whatever a table might hold.
    const project = token.startsWith('phx_') ? undefined : await this.projects.findByToken(token);
    if (!project) throw new NotFound();
    return {
      token: project.apiToken,
      supportedCompression: ['gzip', 'gzip-js'],
      hasFeatureFlags: false,
      captureDeadClicks: false,
      capturePerformance: false,
      autocapture_opt_out: false,
      autocaptureExceptions: false,
      analytics: { endpoint: '/i/v0/e/' },
      elementsChainAsString: true,
      sessionRecording: false,
      errorTracking: { autocaptureExceptions: false, suppressionRules: [] },
      heatmaps: false,
      surveys: false,
      conversations: false,
      defaultIdentifiedOnly: true,
      siteApps: [],
    };
  }

  /** The same config as a script that hands it to posthog-js before the SDK asks for it. */
  async script(token: string): Promise<string> {
    const { siteApps: _siteApps, ...config } = await this.config(token);
    // The token holds only the characters TOKEN allows, so it sits safely in a quoted literal.
    const key = `'${config.token}'`;
    return (
      '(function(){' +
      'window._POSTHOG_REMOTE_CONFIG = window._POSTHOG_REMOTE_CONFIG || {};' +
      `window._POSTHOG_REMOTE_CONFIG[${key}] = {config: ${JSON.stringify(config)}, siteApps: []};` +
      '})();'
    );
  }
}
