/**
 * Containers left in a dead network namespace (anchord issue #9, internal/dependents): a
 * `network_mode: container:<ref>` whose reference no longer names any container. Compose
 * resolves `service:<x>` to the container's ID when it creates a dependant, so recreating `x`
 * leaves every dependant running with no interface, routes or DNAT. Pure: `doctor stale-netns`
 * and the report it prints are built from these.
 */
import { compareText } from '../../base/index.js';
import { containerReference } from './wrap-target-pool.js';
import type { WrapContainer } from './wrap-target-pool.js';

/** One dependant whose reference resolves to no container. */
export interface StaleNetns {
  readonly container: WrapContainer;
  /** The reference as Docker stores it (the gone container's ID, or a name). */
  readonly staleTarget: string;
  /** The Compose command that recreates it, '' without Compose labels. */
  readonly composeHint: string;
}

/** Docker's short ID is 12 characters; a full one is 64. */
const SHORT_ID_LENGTH = 12;
const FULL_ID_LENGTH = 64;

/** Whether `ref` names a container of `all` by full ID, short ID or name (with or without `/`). */
function resolves(ref: string, all: readonly WrapContainer[]): boolean {
  const short = ref.length >= SHORT_ID_LENGTH && ref.length < FULL_ID_LENGTH;
  return all.some(
    (c) =>
      c.id === ref ||
      (short && c.id.startsWith(ref)) ||
      c.names.some((n) => (n.startsWith('/') ? n.slice(1) : n) === ref),
  );
}

function composeHint(container: WrapContainer): string {
  const project = container.labels['com.docker.compose.project'] ?? '';
  const service = container.labels['com.docker.compose.service'] ?? '';
  if (project === '' || service === '') return '';
  return `docker compose -p ${project} up -d --no-deps --force-recreate ${service}`;
}

/**
 * Every candidate whose `container:` reference resolves in none of `all` (the full list, stopped
 * containers included: a stopped owner still holds its namespace).
 */
export function findStaleNetns(
  candidates: readonly WrapContainer[],
  all: readonly WrapContainer[],
): StaleNetns[] {
  const out: StaleNetns[] = [];
  for (const container of candidates) {
    const ref = containerReference(container.networkMode);
    if (ref === undefined || resolves(ref, all)) continue;
    out.push({ container, staleTarget: ref, composeHint: composeHint(container) });
  }
  return out;
}

/** The first name without its `/`, else the short ID, else ''. */
export function firstName(container: Pick<WrapContainer, 'id' | 'names'>): string {
  const name = container.names.find((n) => n !== '');
  if (name !== undefined) return name.startsWith('/') ? name.slice(1) : name;
  return container.id.slice(0, SHORT_ID_LENGTH);
}

/**
 * The `doctor stale-netns` report, in anchord's words: grouped by dead target (the victims of
 * one gone service-anchor together), targets and victims in a stable order so that two runs
 * during an incident can be compared.
 */
export function staleNetnsReport(stale: readonly StaleNetns[]): string {
  if (stale.length === 0) return 'No dead-netns dependents found.\n';
  const byTarget = new Map<string, StaleNetns[]>();
  for (const s of stale) {
    const victims = byTarget.get(s.staleTarget);
    if (victims === undefined) byTarget.set(s.staleTarget, [s]);
    else victims.push(s);
  }
  const targets = [...byTarget.keys()].sort(compareText);
  const lines = [
    `Found ${stale.length} dependent(s) in dead netns across ${targets.length} target(s):`,
    '',
  ];
  for (const target of targets) {
    const victims = [...(byTarget.get(target) ?? [])].sort((a, b) =>
      compareText(firstName(a.container), firstName(b.container)),
    );
    lines.push(`  dead target: ${target}  (${victims.length} victim(s))`);
    for (const victim of victims) {
      lines.push(`    ${firstName(victim.container)}`);
      if (victim.composeHint !== '') lines.push(`      → ${victim.composeHint}`);
    }
    lines.push('');
  }
  return `${lines.join('\n')}\n`;
}
