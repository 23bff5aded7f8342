/**
 * Parts of a definition resolved on their own: the skip-auth routes, the security block (a fixed
 * non-root user or a reviewed root exception), and where a VM's CDI importer downloads from.
 * Pure; reports through `fail`.
 */
import { quote } from '../../base/index.js';
import { apiRouteProblem } from '../apply/api-route-regex.js';
import type { ReportProblem } from './storage.js';
import type { HostPort, SecuritySpec, ServiceKind } from '../types.js';

type Raw = Record<string, unknown>;
const obj = (value: unknown): Raw =>
  typeof value === 'object' && value !== null ? (value as Raw) : {};
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/**
 * `auth.skipAuthRoutes`: each becomes one `--skip-auth-route=`, which oauth2-proxy reads as
 * `[METHOD=]regex` (split at the first `=`), so an `=` inside the regex needs a method before it.
 */
export function resolveSkipAuthRoutes(value: unknown, fail: ReportProblem): string[] {
  const routes = list(value).map(String);
  routes.forEach((route, i) => {
    const path = ['auth', 'skipAuthRoutes', i];
    const equals = route.indexOf('=');
    const method = equals < 0 ? undefined : route.slice(0, equals);
    if (method !== undefined && !/^[A-Z]+!?$/.test(method)) {
      fail(
        'CATALOG_AUTH_API_ROUTES',
        path,
        `${quote(route)}: the proxy reads the text before the first "=" as an HTTP method, and ${quote(method)} is not one`,
        'write METHOD=regex (GET=^/health$), or avoid "=" in the regex (use \\x3d)',
      );
      return;
    }
    const regex = method === undefined ? route : route.slice(equals + 1);
    const problem = apiRouteProblem(regex);
    if (problem !== undefined) fail('CATALOG_AUTH_API_ROUTES', path, `${quote(regex)} ${problem}`);
  });
  return routes;
}

/** The `security` block. A VM has no pod security context of its own to set. */
export function resolveSecurity(
  value: unknown,
  kind: ServiceKind,
  fail: ReportProblem,
): SecuritySpec {
  const raw = obj(value);
  if (value !== undefined && kind === 'vm') {
    fail(
      'CATALOG_SECURITY_ROOT',
      ['security'],
      'security applies to containers; a VM runs its own OS',
    );
    return {};
  }
  const runAs = raw.runAs === undefined ? undefined : obj(raw.runAs);
  const root = raw.rootException === undefined ? undefined : obj(raw.rootException);
  if (runAs !== undefined && root !== undefined) {
    fail(
      'CATALOG_SECURITY_ROOT',
      ['security', 'rootException'],
      'runAs names a non-root user and rootException runs as root: choose one',
    );
    return {};
  }
  const num = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);
  if (runAs !== undefined) {
    const user = num(runAs.user) ?? 1;
    const group = num(runAs.group);
    const fsGroup = num(runAs.fsGroup);
    return {
      runAs: {
        user,
        ...(group !== undefined ? { group } : {}),
        ...(fsGroup !== undefined ? { fsGroup } : {}),
      },
    };
  }
  if (root !== undefined) {
    return {
      rootException: {
        reason: String(root.reason),
        reviewedBy: String(root.reviewedBy),
        capabilities: list(root.capabilities).map(String).sort(),
      },
    };
  }
  return {};
}

/** Host and port of an `http(s)://` URL, or of a `docker://` reference's registry. */
export function sourceHost(template: string): HostPort | undefined {
  const url = /^(https?):\/\/([^/:?#]+)(?::([0-9]+))?/.exec(template);
  if (url !== null) {
    const port = url[3] !== undefined ? Number(url[3]) : url[1] === 'https' ? 443 : 80;
    return { host: (url[2] ?? '').toLowerCase(), port };
  }
  const docker = /^docker:\/\/([^/]+)\//.exec(template);
  const first = docker?.[1];
  // The reference grammar: the first component is a registry when it holds "." or ":" or is
  // localhost; otherwise the image is on Docker Hub.
  if (
    first !== undefined &&
    (first.includes('.') || first.includes(':') || first === 'localhost')
  ) {
    const [host = '', port] = first.split(':');
    return { host: host.toLowerCase(), port: port === undefined ? 443 : Number(port) };
  }
  return template.startsWith('docker://') ? { host: 'registry-1.docker.io', port: 443 } : undefined;
}

/**
 * Where the CDI importer of a VM's root disk downloads from: the template's host, and each
 * `source.importHosts` entry (redirect targets) on the same port. Empty for containers.
 */
export function resolveImportFrom(source: Raw, kind: ServiceKind, fail: ReportProblem): HostPort[] {
  const extra = list(source.importHosts).map(String);
  if (kind !== 'vm') {
    if (extra.length > 0)
      fail(
        'CATALOG_SOURCE_MISMATCH',
        ['source', 'importHosts'],
        'importHosts applies to kind vm only',
      );
    return [];
  }
  const template =
    typeof source.vmTemplate === 'string' ? sourceHost(source.vmTemplate) : undefined;
  if (template === undefined) return [];
  const hosts = new Map<string, HostPort>([[template.host, template]]);
  for (const host of extra) hosts.set(host, { host, port: template.port });
  return [...hosts.values()].sort((a, b) => (a.host < b.host ? -1 : a.host > b.host ? 1 : 0));
}
