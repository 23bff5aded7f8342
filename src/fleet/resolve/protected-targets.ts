/**
 * The Datum agent's own controls, which desired state may never manage: its configuration, the
 * signer list, the state directory with the accepted revision, its binary, package and service.
 * A fleet repository is applied by that agent as root, so a File able to write the signer list
 * would let one commit install a key every later commit is verified against.
 *
 * The set is the one a host with stock paths protects (a repository cannot know a host's agent
 * configuration). A path is refused when it is protected, lies inside a protected directory, or
 * is an ancestor of either (owning `/etc` owns `/etc/datum`). Symlinks are judged by their path
 * and by where they point.
 */
import type { DesiredMap, ResourceType } from '../model.js';

export interface ProtectedSet {
  /** Exact paths. */
  readonly files: readonly string[];
  /** Directories protected with everything below them. */
  readonly dirs: readonly string[];
  /** The agent's package name. */
  readonly packageName: string;
  /** The agent's service unit (also matched without `.service`). */
  readonly unit: string;
}

/** The stock set: Datum's documented default paths. */
export const DATUM_PROTECTED: ProtectedSet = Object.freeze({
  files: Object.freeze([
    '/etc/datum/agent.yaml',
    '/usr/bin/datum',
    '/usr/local/bin/datum',
    '/etc/datum/allowed-signers',
  ]),
  dirs: Object.freeze(['/etc/datum', '/var/lib/datum']),
  packageName: 'datum',
  unit: 'datum.service',
});

/** A `//`, a `.` or `..` segment, or a trailing `/`: what a clean absolute path has none of. */
const UNCLEAN = /\/\/|\/\.\.?(?:\/|$)|.\/$/;

/** Lexical clean of an absolute path (`/etc/x/../datum` → `/etc/datum`); links are not resolved. */
export function cleanAbsolute(path: string): string {
  // Most paths are clean already; this runs for every path of every host.
  if (path.startsWith('/') && !UNCLEAN.test(path)) return path;
  const out: string[] = [];
  for (const part of path.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') out.pop();
    else out.push(part);
  }
  return `/${out.join('/')}`;
}

/** Whether `child` is `parent` or lies below it. */
function within(parent: string, child: string): boolean {
  if (parent === '/') return child.startsWith('/');
  return (
    child.startsWith(parent) &&
    (child.length === parent.length || child.charCodeAt(parent.length) === 0x2f)
  );
}

/** What a protected path defends, so the refusal reads as a boundary, not a typo. */
function protects(path: string): string {
  if (path.endsWith('agent.yaml'))
    return "holds this host's identity, its source and the agent's trust settings";
  if (path.includes('signers'))
    return 'holds the keys that authorise desired state, so managing it would let a repository approve its own replacement';
  if (path.includes('credential')) return 'holds the credential used to read the repository';
  if (path.includes('secret')) return 'holds secret material resolved on the host';
  if (path.endsWith('/datum') && path.includes('bin')) return 'is the agent binary';
  return 'holds the accepted revision, the pass lock and pass reports';
}

/** Why a path is protected, or undefined. Relative paths are left to field validation. */
function pathProblem(ref: string, target: string, set: ProtectedSet): string | undefined {
  if (!target.startsWith('/')) return undefined;
  const clean = cleanAbsolute(target);
  for (const file of set.files) {
    if (clean === file) return `${ref} targets ${file}, which ${protects(file)}`;
    if (within(clean, file))
      return `${ref} targets ${clean}, which contains ${file}, and that ${protects(file)}`;
  }
  for (const dir of set.dirs) {
    if (within(dir, clean))
      return `${ref} targets ${clean}, which is inside ${dir}, and that ${protects(dir)}`;
    if (within(clean, dir))
      return `${ref} targets ${clean}, which contains ${dir}, and that ${protects(dir)}`;
  }
  return undefined;
}

/** A refusal: the message and which desired field it is about (for its file and line). */
export interface ProtectedProblem {
  readonly message: string;
  /** `path`, `target`, or undefined when the resource's name is at fault. */
  readonly field?: string;
}

/** Why a merged resource may not be managed, or undefined. */
export function protectedTargetProblem(
  type: ResourceType,
  ref: string,
  target: string | undefined,
  desired: DesiredMap,
  set: ProtectedSet = DATUM_PROTECTED,
): ProtectedProblem | undefined {
  if (type === 'File' || type === 'Directory' || type === 'Symlink') {
    if (target !== undefined) {
      const message = pathProblem(ref, target, set);
      if (message !== undefined) return { message, field: 'path' };
    }
    const pointsAt = desired.target;
    if (type === 'Symlink' && typeof pointsAt === 'string') {
      const message = pathProblem(ref, pointsAt, set);
      if (message !== undefined)
        return { message: `${message} (the link points there)`, field: 'target' };
    }
    return undefined;
  }
  if (type === 'Package' && target === set.packageName)
    return {
      message: `${ref} targets the agent's own package, which desired state cannot manage: removing it would stop the host being managed at all`,
    };
  if (type === 'Service' && (target === set.unit || target === set.unit.replace(/\.service$/, '')))
    return {
      message: `${ref} targets the agent's own service, which desired state cannot manage: stopping it would stop the host reconciling`,
    };
  return undefined;
}
