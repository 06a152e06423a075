import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * Every path the browser SDK calls from a site's own origin, with what its answers vary by:
 * the remote config is answered per page (PostHog keys it by Origin and Referer), and the bundles
 * may be gzipped.
 */
const SDK_PATHS: { prefix: string; vary: string }[] = [
  ...['/batch', '/capture', '/e', '/i/v0/e', '/track', '/engage', '/flags', '/decide'].map((prefix) => ({ prefix, vary: 'Origin' })),
  { prefix: '/array', vary: 'Origin, Referer' },
  { prefix: '/static', vary: 'Origin, Accept-Encoding' },
];

function sdkPathOf(path: string): { prefix: string; vary: string } | undefined {
  return SDK_PATHS.find(({ prefix }) => path === prefix || path.startsWith(`${prefix}/`));
}

/**
 * PostHog's CORS for everything its browser SDK calls: any origin, mirrored, with credentials.
 * It runs before routing so every answer of these paths carries it — errors, 404s and 405s
 * included — otherwise the browser hides the answer from posthog-js and logs a CORS error.
 */
export function allowSdkCors(request: FastifyRequest, reply: FastifyReply): void {
  const path = (request.url.split('?')[0] ?? '/').replace(/\/{2,}/g, '/');
  const sdkPath = sdkPathOf(path);
  if (!sdkPath) return;
  const origin = request.headers.origin;
  void reply.header('Access-Control-Allow-Origin', origin ?? '*');
  if (origin) void reply.header('Access-Control-Allow-Credentials', 'true');
  void reply.header('Vary', sdkPath.vary);
  void reply.header('Access-Control-Allow-Methods', 'GET, POST, OPTIONS');
  const requested = request.headers['access-control-request-headers'];
  if (requested) void reply.header('Access-Control-Allow-Headers', requested);
}
