/**
 * `labelwise.yaml`'s `policy:` and `accept:` keys: what `kubectl apply` is run with for the
 * policy part, and the findings the repository accepts.
 *
 * ```yaml
 * policy:
 *   namespace: booksapp        # kubectl apply -n booksapp, for every namespace-less object
 *   namespaces:                # or per folder (relative to the root); the deepest folder wins
 *     policy/faces: faces
 *   settings:                  # the cluster's settings, as `policy --settings FILE` takes them
 *     defaultPolicy: all-authenticated
 *     clusterNetworks: [10.0.0.0/8]
 * accept:
 *   - code: POLICY_AUTHZ_BROADER_THAN_ROUTES
 *     object: AuthorizationPolicy booksapp/authors-open
 *     reason: readers may see writes on purpose
 * ```
 *
 * Only the shape is checked here; a setting the policy module refuses (a CIDR that is not one)
 * is the policy stage's own error finding.
 */
import type { AcceptRule } from '../base/index.js';

/** The policy stage's options that `labelwise.yaml` sets. */
export interface PolicyConfig {
  readonly namespace?: string;
  readonly folderNamespaces?: Readonly<Record<string, string>>;
  readonly settings?: Readonly<Record<string, string | readonly string[]>>;
}

type Problem = (path: (string | number)[], message: string) => void;

/** The keys a policy settings mapping may hold, in `labelwise.yaml` and in a `--settings` file. */
export const POLICY_SETTING_KEYS = [
  'defaultPolicy',
  'clusterNetworks',
  'probeNetworks',
  'identityDomain',
  'controlPlaneNamespace',
] as const;
const LIST_SETTINGS: ReadonlySet<string> = new Set(['clusterNetworks', 'probeNetworks']);

/** A Kubernetes namespace name: an RFC 1123 label. */
const NAMESPACE = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isNamespace(value: unknown): value is string {
  return typeof value === 'string' && NAMESPACE.test(value);
}

/** A folder relative to the root that stays inside it; `''` or `.` is the root itself. */
function folderKey(path: string): string | undefined {
  if (path.startsWith('/') || path.split('/').some((s) => s === '..')) return undefined;
  const trimmed = path.replace(/\/+$/, '');
  return trimmed === '.' ? '' : trimmed;
}

function folderNamespaces(entry: unknown, problem: Problem): Record<string, string> | undefined {
  if (!isMapping(entry)) {
    problem(['policy', 'namespaces'], '`policy.namespaces` maps folders to namespaces');
    return undefined;
  }
  const out: Record<string, string> = {};
  for (const [folder, namespace] of Object.entries(entry)) {
    const key = folderKey(folder);
    if (key === undefined)
      problem(
        ['policy', 'namespaces', folder],
        'a folder inside the repository, relative to its root',
      );
    else if (!isNamespace(namespace))
      problem(['policy', 'namespaces', folder], 'a namespace is a lowercase RFC 1123 label');
    else out[key] = namespace;
  }
  return out;
}

function settings(
  entry: unknown,
  problem: Problem,
): Record<string, string | readonly string[]> | undefined {
  if (!isMapping(entry)) {
    problem(['policy', 'settings'], '`policy.settings` is a mapping of cluster settings');
    return undefined;
  }
  const out: Record<string, string | readonly string[]> = {};
  for (const [key, value] of Object.entries(entry)) {
    const path = ['policy', 'settings', key];
    if (!(POLICY_SETTING_KEYS as readonly string[]).includes(key))
      problem(
        path,
        `unknown setting ${JSON.stringify(key)}; expected one of ${POLICY_SETTING_KEYS.join(', ')}`,
      );
    else if (typeof value === 'string') out[key] = value;
    else if (
      LIST_SETTINGS.has(key) &&
      Array.isArray(value) &&
      value.every((v) => typeof v === 'string')
    )
      out[key] = value as string[];
    else
      problem(path, LIST_SETTINGS.has(key) ? 'a list of CIDRs, or one string of them' : 'a string');
  }
  return out;
}

/** `policy:` — namespace, namespaces and settings; undefined when nothing usable is given. */
export function policyConfig(entry: unknown, problem: Problem): PolicyConfig | undefined {
  if (!isMapping(entry)) {
    problem(['policy'], '`policy` must be a mapping with `namespace`, `namespaces` or `settings`');
    return undefined;
  }
  const config: {
    namespace?: string;
    folderNamespaces?: Record<string, string>;
    settings?: Record<string, string | readonly string[]>;
  } = {};
  for (const [key, value] of Object.entries(entry)) {
    if (key === 'namespace') {
      if (isNamespace(value)) config.namespace = value;
      else problem(['policy', 'namespace'], 'a namespace is a lowercase RFC 1123 label');
    } else if (key === 'namespaces') {
      const folders = folderNamespaces(value, problem);
      if (folders !== undefined) config.folderNamespaces = folders;
    } else if (key === 'settings') {
      const given = settings(value, problem);
      if (given !== undefined) config.settings = given;
    } else
      problem(
        ['policy', key],
        `unknown key ${JSON.stringify(key)}; expected namespace, namespaces or settings`,
      );
  }
  return config;
}

const ACCEPT_SHAPE =
  '`accept` is a list of `{code: CODE, object?: OBJECT, file?: PATH, reason: WHY}`';

/** One `accept:` entry, or undefined (after reporting why). */
function acceptRule(entry: unknown, at: number, problem: Problem): AcceptRule | undefined {
  const path = ['accept', at];
  if (!isMapping(entry)) {
    problem(path, ACCEPT_SHAPE);
    return undefined;
  }
  const { code, object, file, reason, ...rest } = entry;
  for (const key of Object.keys(rest))
    problem(
      [...path, key],
      `unknown key ${JSON.stringify(key)}; expected code, object, file or reason`,
    );
  if (typeof code !== 'string' || !/^[A-Z][A-Z0-9_]*$/.test(code)) {
    problem([...path, 'code'], 'a finding code, such as POLICY_AUTHZ_BROADER_THAN_ROUTES');
    return undefined;
  }
  if (typeof reason !== 'string' || reason.trim() === '') {
    problem([...path, 'reason'], 'an accepted finding says why it is intended');
    return undefined;
  }
  if (object !== undefined && typeof object !== 'string') {
    problem([...path, 'object'], 'an object as findings name it, e.g. `Server ns/name`');
    return undefined;
  }
  const folder = typeof file === 'string' ? folderKey(file) : undefined;
  if (file !== undefined && (folder === undefined || folder === '')) {
    problem([...path, 'file'], 'a file or folder inside the repository, relative to its root');
    return undefined;
  }
  return {
    code,
    reason: reason.trim(),
    ...(object !== undefined ? { object } : {}),
    ...(folder !== undefined ? { file: folder } : {}),
  };
}

/** `accept:` — every well-formed rule (a malformed one is reported and left out). */
export function acceptRules(entry: unknown, problem: Problem): AcceptRule[] {
  if (!Array.isArray(entry)) {
    problem(['accept'], ACCEPT_SHAPE);
    return [];
  }
  return entry
    .map((rule, i) => acceptRule(rule, i, problem))
    .filter((rule): rule is AcceptRule => rule !== undefined);
}
