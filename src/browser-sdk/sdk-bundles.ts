import crypto from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { promisify } from 'node:util';
import zlib from 'node:zlib';

const gzip = promisify(zlib.gzip);

const SEMVER = /^\d{1,5}\.\d{1,5}\.\d{1,5}(?:-[0-9A-Za-z.-]{1,64})?$/;

/**
 * The posthog-js bundles a page loads from its `api_host`: the snippet's `array*.js`, and the
 * extensions posthog-js loads by name when a feature is turned on (`/static/<version>/<name>.js`,
 * falling back to `/static/<name>.js?v=…`). Only these are served, so no request can reach any
 * other file of the package or outside it.
 */
export const BUNDLE_NAMES: readonly string[] = [
  'array',
  'array.full',
  'array.full.es5',
  'array.no-external',
  'array.full.no-external',
  'all-external-dependencies',
  'conversations',
  'crisp-chat-integration',
  'dead-clicks-autocapture',
  'element-inference',
  'exception-autocapture',
  'intercom-integration',
  'lazy-recorder',
  'logs',
  'posthog-recorder',
  'product-tours',
  'recorder',
  'recorder-v2',
  'surveys',
  'tracing-headers',
  'web-vitals',
  'web-vitals-with-attribution',
  'web-vitals-soft-navs',
  'web-vitals-with-attribution-soft-navs',
];

export interface Bundle {
  body: Buffer;
  gzipped: Buffer;
  etag: string;
}

/** Reads the bundles of the installed posthog-js on first use and keeps them, raw and gzipped. */
export class SdkBundles {
  readonly version: string;
  private readonly distDir: string;
  private readonly names = new Set(BUNDLE_NAMES);
  private readonly loaded = new Map<string, Promise<Bundle | null>>();

  constructor() {
    const packageJson = createRequire(import.meta.url).resolve('posthog-js/package.json');
    this.version = (JSON.parse(fs.readFileSync(packageJson, 'utf8')) as { version: string }).version;
    this.distDir = path.join(path.dirname(packageJson), 'dist');
  }

  /**
   * The bundle a file name asks for (`surveys.js`), or null for a name that is not one. A path
   * with another version still gets the installed bundle: posthog-js asks the versioned path
   * first and falls back to the unversioned one, which serves the same file, so a 404 would only
   * add a failed request and a console error on every page of an SDK bundled at another version.
   */
  async find(file: string, version?: string): Promise<Bundle | null> {
    if (version !== undefined && !SEMVER.test(version)) return null;
    if (!file.endsWith('.js')) return null;
    const name = file.slice(0, -'.js'.length);
    if (!this.names.has(name)) return null;
    let bundle = this.loaded.get(name);
    if (!bundle) {
      bundle = this.load(name);
      this.loaded.set(name, bundle);
    }
    return bundle;
  }

  private async load(name: string): Promise<Bundle | null> {
    let body: Buffer;
    try {
      body = await fs.promises.readFile(path.join(this.distDir, `${name}.js`));
    } catch (error) {
      // A posthog-js release that no longer ships a bundle leaves it a 404, as for any name.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      this.loaded.delete(name);
      throw error;
    }
    const etag = `"${crypto.createHash('sha256').update(body).digest('base64url').slice(0, 32)}"`;
    return { body, gzipped: await gzip(body, { level: 9 }), etag };
  }
}
