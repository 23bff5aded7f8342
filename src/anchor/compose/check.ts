/**
 * The static anchor check (`labelwise anchor check`): which backends each anchor of a Compose
 * project claims, the entries it would install, and — the operator contract anchord leaves to
 * documentation — a proof that no two anchors can ever claim the same container. Pure.
 *
 * Overlap is decided on the anchors' scopes with the selector algebra, not on the services in the
 * files: a container started later outside Compose (an Authentik outpost) is exactly the risk, so
 * an overlap is an error whenever *some* label set satisfies both scopes, and the report gives
 * that label set as the witness.
 *
 * Profiles: when the project was loaded with every profile (no `--profile`), the proof must hold
 * for every combination. Profiles only ever add services, so any two services can run together
 * (enable one profile of each): every claim is reported with the profiles it needs, and an
 * overlap or a port conflict names the profiles that make it.
 */
import { LabelwiseError } from '../../base/errors.js';
import { compareText, pushAll, sortDiagnostics } from '../../base/index.js';
import type { Diagnostic } from '../../base/index.js';
import { compile, labelsFrom, matches, overlap } from '../../selector/index.js';
import type { Labels, Selector } from '../../selector/index.js';
import { COMPOSE_PROJECT_LABEL, loadConfig, resolveScope } from '../config.js';
import { EXPOSE_LABEL, EXPOSE_V6_LABEL, parseExpose, parseExposeV6 } from '../expose.js';
import type { ExposeEntry, Family, Proto } from '../model.js';
import { claimPorts } from '../port-claims.js';
import { misleadingScope, scopeText } from '../scope-notice.js';
import type { ComposeProject, ComposeService } from './compose-model.js';

export const COMPOSE_SERVICE_LABEL = 'com.docker.compose.service';

/** One entry an anchor would install (addresses are only known at run time). */
export interface CheckEntry {
  readonly family: Family;
  readonly proto: Proto;
  readonly port: number;
  readonly backend: string;
  readonly backendPort: number;
}

export interface CheckedAnchor {
  readonly service: string;
  /** The scope as a Kubernetes selector string. */
  readonly scope: string;
  readonly backends: readonly string[];
  readonly entries: readonly CheckEntry[];
  /** The anchor's own profiles (absent: it always runs). */
  readonly profiles?: readonly string[];
  /** Per claimed backend that runs only under profiles, those profiles (absent: none does). */
  readonly backendProfiles?: Readonly<Record<string, readonly string[]>>;
}

export interface CheckOverlap {
  readonly a: string;
  readonly b: string;
  readonly witness: Labels;
  /** Profiles to enable for both anchors to run (absent: both always run). */
  readonly profiles?: readonly string[];
}

export interface CheckReport {
  readonly project: string;
  readonly anchors: readonly CheckedAnchor[];
  readonly overlaps: readonly CheckOverlap[];
  /** Every problem of the load and the check, in the one order (base `sortDiagnostics`). */
  readonly diagnostics: readonly Diagnostic[];
}

interface Backend {
  readonly service: ComposeService;
  readonly labels: Labels;
  readonly expose: readonly ExposeEntry[];
  readonly v6: boolean;
}

/** Whether a container with this `anchord.expose` value is a backend (valid and not blank). */
function isBackendExpose(value: string): boolean {
  try {
    return parseExpose(value).length > 0;
  } catch (error) {
    if (error instanceof LabelwiseError) return false;
    throw error;
  }
}

function isAnchor(service: ComposeService): boolean {
  const env = service.environment;
  const set = (key: string): boolean => env.has(key);
  const command = service.command?.value[0];
  return (
    set('ANCHORD_LABEL_SELECTOR') ||
    set('ANCHORD_PROJECT') ||
    (command !== undefined && (command === 'network-anchor' || command.endsWith('/network-anchor')))
  );
}

type Where = 'labels' | 'environment';

/** Where a service's label or variable was written (the service itself when unknown). */
function locate(
  service: ComposeService,
  key?: string,
  where: Where = 'labels',
): { file: string; line: number; column: number; object: string } {
  const located = key === undefined ? undefined : service[where].get(key);
  const object = `service ${service.name}`;
  return located !== undefined
    ? { file: located.file, line: located.line, column: located.column, object }
    : { file: service.file, line: service.line, column: service.column, object };
}

/** The profiles that run every service given: one of each that has any (sorted, unique). */
function profilesFor(...services: readonly ComposeService[]): string[] {
  const out = new Set<string>();
  for (const s of services) {
    if (s.profiles.length === 0 || s.profiles.some((p) => out.has(p))) continue;
    out.add([...s.profiles].sort(compareText)[0] as string);
  }
  return [...out].sort(compareText);
}

const withProfiles = (profiles: readonly string[]): string =>
  profiles.length === 0 ? '' : ` (with ${profiles.map((p) => `--profile ${p}`).join(' ')})`;

/** The services with a valid, non-blank `anchord.expose`; invalid labels become errors. */
function collectBackends(project: ComposeProject, issues: Diagnostic[]): Backend[] {
  const backends: Backend[] = [];
  for (const service of project.services) {
    const expose = service.labels.get(EXPOSE_LABEL);
    if (expose === undefined || expose.value.trim() === '') continue;
    const entries: [string, string][] = [...service.labels].map(([k, v]) => [k, v.value]);
    entries.push([COMPOSE_PROJECT_LABEL, project.name], [COMPOSE_SERVICE_LABEL, service.name]);
    try {
      const parsed = parseExpose(expose.value);
      if (parsed.length === 0) continue; // only empty items: not a backend, as for the daemon
      const v6 = parseExposeV6(service.labels.get(EXPOSE_V6_LABEL)?.value) === 'auto';
      const ipv6 = v6 && service.networks.some((n) => project.ipv6Networks.has(n));
      backends.push({ service, labels: labelsFrom(entries), expose: parsed, v6: ipv6 });
    } catch (error) {
      if (!(error instanceof LabelwiseError)) throw error;
      const label = error.source.label ?? EXPOSE_LABEL;
      issues.push({
        severity: 'error',
        code: error.code,
        message: `${label}: ${error.message}`,
        ...locate(service, label),
      });
    }
  }
  return backends;
}

interface Anchor {
  readonly service: ComposeService;
  readonly scope: Selector;
  /** The variable the scope came from: where an overlap error points. */
  readonly variable: string;
}

function configIssue(service: ComposeService, error: LabelwiseError): Diagnostic {
  const key = error.source.env;
  return {
    severity: 'error',
    code: error.code,
    message: `${key !== undefined ? `${key}: ` : ''}${error.message}`,
    ...(error.hint !== undefined ? { hint: error.hint } : {}),
    ...locate(service, key, 'environment'),
  };
}

/**
 * The anchors with a scope, and the names of those whose scope is invalid (they claim nothing
 * until it is fixed). Configuration errors become diagnostics.
 */
function collectAnchors(
  project: ComposeProject,
  issues: Diagnostic[],
): { anchors: Anchor[]; unscoped: string[] } {
  const anchors: Anchor[] = [];
  const unscoped: string[] = [];
  for (const service of project.services.filter(isAnchor)) {
    const env: Record<string, string> = Object.create(null);
    for (const [key, value] of service.environment)
      if (value.value !== undefined) env[key] = value.value;
    let configError: LabelwiseError | undefined;
    try {
      loadConfig(env);
    } catch (error) {
      if (!(error instanceof LabelwiseError)) throw error;
      configError = error;
      issues.push(configIssue(service, error));
    }
    // Not a network anchor (an unsupported or unknown mode): it claims nothing.
    if (configError?.source.env === 'ANCHORD_MODE') continue;
    // The scope is resolved on its own, so that a wrong poll interval or metrics address does
    // not hide this anchor's claims and overlaps behind one error.
    try {
      const resolved = resolveScope(env);
      anchors.push({ service, scope: resolved.scope, variable: resolved.variable });
      pushAll(issues, scopeNotices(service, resolved.scope, resolved.variable));
    } catch (error) {
      if (!(error instanceof LabelwiseError)) throw error;
      const same =
        configError !== undefined &&
        configError.code === error.code &&
        configError.source.env === error.source.env;
      if (!same) issues.push(configIssue(service, error));
      unscoped.push(service.name);
    }
  }
  return { anchors, unscoped };
}

/** Warnings for an equality scope that reads like another operator (`scope-notice.ts`). */
function scopeNotices(service: ComposeService, scope: Selector, variable: string): Diagnostic[] {
  return misleadingScope(scope).map((message) => ({
    severity: 'warning' as const,
    code: 'ANCHOR_SCOPE_MISLEADING' as const,
    message: `${variable}: ${message}`,
    hint: 'ANCHORD_LABEL_SELECTOR is key=value pairs only; write the key and value you mean',
    ...locate(service, variable, 'environment'),
  }));
}

interface Request extends CheckEntry {
  readonly from: Backend;
}

/** The entries one anchor would install for its backends, port conflicts as errors. */
function entriesOf(anchor: Anchor, mine: readonly Backend[], issues: Diagnostic[]): CheckEntry[] {
  const requests: Request[] = [];
  for (const backend of mine)
    for (const family of backend.v6 ? (['ipv4', 'ipv6'] as const) : (['ipv4'] as const))
      for (const item of backend.expose)
        requests.push({
          family,
          proto: item.proto,
          port: item.port,
          backend: backend.service.name,
          backendPort: item.backendPort,
          from: backend,
        });
  // The daemon's rule (first in order wins); backends are in service-name order here.
  const entries: CheckEntry[] = [];
  const reported = new Set<string>();
  for (const claim of claimPorts(requests)) {
    const { from: _from, ...entry } = claim.winner;
    entries.push(entry);
    for (const loser of claim.losers) {
      // One error per backend pair and port, not one per address family.
      const key = `${loser.backend}\u0000${claim.winner.backend}\u0000${loser.proto}/${loser.port}`;
      if (reported.has(key)) continue;
      reported.add(key);
      const otherAt = locate(claim.winner.from.service, EXPOSE_LABEL);
      const profiles = profilesFor(anchor.service, claim.winner.from.service, loser.from.service);
      issues.push({
        severity: 'error',
        code: 'ANCHOR_PORT_CONFLICT',
        message: `backends ${JSON.stringify(claim.winner.backend)} (${otherAt.file}:${otherAt.line}) and ${JSON.stringify(loser.backend)} of anchor ${JSON.stringify(anchor.service.name)} both expose ${loser.proto}/${loser.port}${withProfiles(profiles)}`,
        ...locate(loser.from.service, EXPOSE_LABEL),
      });
    }
  }
  return entries.sort((a, b) =>
    a.family !== b.family
      ? compareText(a.family, b.family)
      : a.proto !== b.proto
        ? compareText(a.proto, b.proto)
        : a.port - b.port,
  );
}

/** What one anchor claims, with the profiles each profile-only claim needs. */
function claimsOf(anchor: Anchor, backends: readonly Backend[], issues: Diagnostic[]) {
  const inScope = compile(anchor.scope);
  const mine = backends.filter((b) => inScope(b.labels));
  const backendProfiles: Record<string, string[]> = {};
  for (const b of mine)
    if (b.service.profiles.length > 0)
      backendProfiles[b.service.name] = [...b.service.profiles].sort(compareText);
  const checked: CheckedAnchor = {
    service: anchor.service.name,
    scope: scopeText(anchor.scope),
    backends: mine.map((b) => b.service.name).sort(compareText),
    entries: entriesOf(anchor, mine, issues),
    ...(anchor.service.profiles.length > 0
      ? { profiles: [...anchor.service.profiles].sort(compareText) }
      : {}),
    ...(Object.keys(backendProfiles).length > 0 ? { backendProfiles } : {}),
  };
  return { checked, claimed: mine };
}

/**
 * The overlap of two anchors' scopes, or undefined when no backend could ever be claimed by both.
 * A container is only claimed with a valid, non-blank expose label: when a scope pins the label
 * (scopes are equality lists), every container both could claim carries exactly the witness's
 * value, and if that is no backend's value, neither anchor can ever claim one.
 */
function overlapOf(a: Anchor, b: Anchor): CheckOverlap | undefined {
  const result = overlap(a.scope, b.scope);
  if (!result.overlap) return undefined;
  let witness = result.witness;
  const pinned = [a.scope, b.scope].some((s) => s.requirements.some((r) => r.key === EXPOSE_LABEL));
  const pinnedValue = witness[EXPOSE_LABEL];
  if (pinned && pinnedValue !== undefined && !isBackendExpose(pinnedValue)) return undefined;
  if (witness[EXPOSE_LABEL] === undefined) {
    const withExpose = labelsFrom([...Object.entries(witness), [EXPOSE_LABEL, 'tcp/80']]);
    if (matches(a.scope, withExpose) && matches(b.scope, withExpose)) witness = withExpose;
  }
  const profiles = profilesFor(a.service, b.service);
  return {
    a: a.service.name,
    b: b.service.name,
    witness,
    ...(profiles.length > 0 ? { profiles } : {}),
  };
}

function overlapIssue(a: Anchor, b: Anchor, found: CheckOverlap, backends: readonly Backend[]) {
  const { witness } = found;
  const shown = Object.keys(witness)
    .sort(compareText)
    .map((k) => `${k}=${witness[k]}`)
    .join(',');
  const sharing = backends
    .filter((x) => matches(a.scope, x.labels) && matches(b.scope, x.labels))
    .map((x) => x.service.name + withProfiles(profilesFor(a.service, b.service, x.service)));
  // The error points at b's scope; the message says where a's is, so both can be found.
  const aAt = locate(a.service, a.variable, 'environment');
  return {
    severity: 'error' as const,
    code: 'ANCHOR_SCOPE_OVERLAP' as const,
    message:
      `anchors ${JSON.stringify(a.service.name)} (${scopeText(a.scope)}, ${aAt.file}:${aAt.line}) and ${JSON.stringify(b.service.name)} (${scopeText(b.scope)}) can claim the same container${withProfiles(found.profiles ?? [])}: ` +
      `a container labelled ${shown} would be claimed by both` +
      (sharing.length > 0 ? `; already claimed by both: ${sharing.join(', ')}` : ''),
    witness,
    ...locate(b.service, b.variable, 'environment'),
  };
}

function unclaimedIssue(backend: Backend, unscoped: readonly string[]): Diagnostic {
  return {
    severity: 'warning',
    code: 'ANCHOR_UNCLAIMED_BACKEND',
    message:
      `backend ${JSON.stringify(backend.service.name)} has ${EXPOSE_LABEL} but no anchor in this project claims it` +
      // Say so when the cause may be an anchor whose scope is already reported as an error.
      (unscoped.length > 0
        ? ` (${unscoped.map((n) => JSON.stringify(n)).join(', ')} ${unscoped.length === 1 ? 'has' : 'have'} an invalid scope and claim${unscoped.length === 1 ? 's' : ''} nothing)`
        : ''),
    ...locate(backend.service, EXPOSE_LABEL),
  };
}

/**
 * Checks a loaded project. `loadDiagnostics` (from {@link loadComposeProject}) are carried into
 * the report. Deterministic: anchors, backends, entries, overlaps and diagnostics are sorted.
 */
export function checkAnchors(
  project: ComposeProject,
  loadDiagnostics: readonly Diagnostic[] = [],
): CheckReport {
  const issues: Diagnostic[] = [...loadDiagnostics];
  const backends = collectBackends(project, issues);
  const { anchors, unscoped } = collectAnchors(project, issues);
  const checked: CheckedAnchor[] = [];
  const claimed = new Set<string>();
  for (const anchor of anchors) {
    const result = claimsOf(anchor, backends, issues);
    checked.push(result.checked);
    for (const b of result.claimed) claimed.add(b.service.name);
  }
  const overlaps: CheckOverlap[] = [];
  for (let i = 0; i < anchors.length; i++)
    for (let j = i + 1; j < anchors.length; j++) {
      const a = anchors[i] as Anchor;
      const b = anchors[j] as Anchor;
      const found = overlapOf(a, b);
      if (found === undefined) continue;
      overlaps.push(found);
      issues.push(overlapIssue(a, b, found, backends));
    }
  for (const backend of backends)
    if (!claimed.has(backend.service.name)) issues.push(unclaimedIssue(backend, unscoped));
  return {
    project: project.name,
    anchors: checked.sort((x, y) => compareText(x.service, y.service)),
    overlaps,
    diagnostics: sortDiagnostics(issues),
  };
}
