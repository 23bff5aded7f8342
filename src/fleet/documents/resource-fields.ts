/**
 * The `desired` fields of the nine resource types, and their per-document checks: unknown
 * fields, types (booleans, integers, text, lists), enums, absolute and relative paths, and the
 * quoted octal `mode`. Checks that need the whole merged resource (required fields, exclusive
 * content sources, signing key xor `unsigned`, privileged modes) live in `resolve/resource-checks.ts`.
 */
import type { ResourceType } from '../model.js';

export type FieldKind =
  | { readonly kind: 'text' }
  | { readonly kind: 'enum'; readonly values: readonly string[] }
  | { readonly kind: 'bool' }
  | { readonly kind: 'int'; readonly min?: number }
  | { readonly kind: 'absPath' }
  | { readonly kind: 'relPath' }
  | { readonly kind: 'mode' }
  | { readonly kind: 'textList' }
  /** A user, group, package, unit, key or check name: letters, digits, `.`, `-`, `_`, `+`. */
  | { readonly kind: 'name' }
  | { readonly kind: 'nameList' };

export interface ResourceSpec {
  readonly fields: Readonly<Record<string, FieldKind>>;
  /** Required fields other than the target identity (checked after merging). */
  readonly required: readonly string[];
  /** Fields required unless the merged resource has `state: absent`. */
  readonly requiredWhenPresent?: readonly string[];
  /** Where the target identity comes from. */
  readonly identity: 'path' | 'id' | 'name';
}

const text: FieldKind = { kind: 'text' };
const bool: FieldKind = { kind: 'bool' };
const absPath: FieldKind = { kind: 'absPath' };
const relPath: FieldKind = { kind: 'relPath' };
const mode: FieldKind = { kind: 'mode' };
const name: FieldKind = { kind: 'name' };
const nameList: FieldKind = { kind: 'nameList' };
const presence: FieldKind = { kind: 'enum', values: ['present', 'absent'] };
const id: FieldKind = { kind: 'int', min: 0 };

export const RESOURCE_SPECS: Readonly<Record<ResourceType, ResourceSpec>> = Object.freeze({
  Package: { fields: { state: presence, version: text }, required: ['state'], identity: 'name' },
  Repository: {
    fields: {
      id: name,
      state: presence,
      url: text,
      signingKey: text,
      unsigned: bool,
      enabled: bool,
      priority: { kind: 'int' },
      suite: name,
      components: nameList,
    },
    required: [],
    requiredWhenPresent: ['url'],
    identity: 'id',
  },
  File: {
    fields: {
      path: absPath,
      state: presence,
      content: text,
      source: relPath,
      template: relPath,
      secretRef: name,
      owner: name,
      group: name,
      mode,
      sensitive: bool,
      validate: name,
      allowPrivileged: bool,
    },
    required: [],
    identity: 'path',
  },
  Directory: {
    fields: {
      path: absPath,
      state: presence,
      owner: name,
      group: name,
      mode,
      allowPrivileged: bool,
    },
    required: [],
    identity: 'path',
  },
  Symlink: {
    fields: { path: absPath, state: presence, target: text, owner: name, group: name },
    required: [],
    requiredWhenPresent: ['target'],
    identity: 'path',
  },
  User: {
    fields: {
      state: presence,
      uid: id,
      primaryGroup: name,
      groups: nameList,
      home: absPath,
      shell: absPath,
      comment: text,
      system: bool,
      passwordRef: name,
    },
    required: ['state'],
    identity: 'name',
  },
  Group: {
    fields: { state: presence, gid: id, system: bool },
    required: ['state'],
    identity: 'name',
  },
  Service: {
    fields: { state: { kind: 'enum', values: ['running', 'stopped'] }, enabled: bool },
    required: ['state', 'enabled'],
    identity: 'name',
  },
  Sysctl: { fields: { value: text, state: presence }, required: ['value'], identity: 'name' },
});

/** The File fields that set content; at most one may be present. */
export const CONTENT_SOURCES = Object.freeze(['content', 'source', 'template', 'secretRef']);

/** Longest name Datum accepts. */
export const MAX_NAME_LENGTH = 256;

/**
 * Why `text` is not a safe name, or undefined. An allowed set, as Datum has it: a list of
 * dangerous characters is never complete, and these values reach shells, unit names and paths.
 */
export function nameProblem(text: string): string | undefined {
  if (text === '') return 'must not be empty';
  if (text.length > MAX_NAME_LENGTH)
    return `must be at most ${MAX_NAME_LENGTH} characters, got ${text.length}`;
  if (/^[A-Za-z0-9._+-]+$/.test(text)) return undefined;
  return `${JSON.stringify(text)} is not allowed; use letters, digits, dot, hyphen, underscore or plus`;
}

/** Why `path` is not a clean absolute path, or undefined. */
export function absolutePathProblem(path: string): string | undefined {
  if (!path.startsWith('/')) return `must be an absolute path, got ${JSON.stringify(path)}`;
  if (path === '/') return undefined;
  const parts = path.slice(1).split('/');
  if (parts.some((part) => part === '' || part === '.' || part === '..'))
    return `must be a clean absolute path without empty, '.' or '..' components, got ${JSON.stringify(path)}`;
  return undefined;
}

/** Why `path` is not a relative path inside the layer, or undefined. */
export function relativePathProblem(path: string): string | undefined {
  if (path === '') return 'must not be empty';
  if (path.startsWith('/'))
    return `must be relative to the layer's directory, got ${JSON.stringify(path)}`;
  if (path.split('/').some((part) => part === '..'))
    return `must not contain '..', got ${JSON.stringify(path)}`;
  return undefined;
}

/** Why `text` is not a 3–4 digit octal mode, or undefined. */
export function modeProblem(text: string): string | undefined {
  return /^[0-7]{3,4}$/.test(text)
    ? undefined
    : `must be a 3-4 digit octal mode such as "0640", got ${JSON.stringify(text)}`;
}

const SYSTEM_DIRS = [
  '/bin',
  '/boot',
  '/etc',
  '/lib',
  '/lib32',
  '/lib64',
  '/opt',
  '/root',
  '/sbin',
  '/usr',
];

/** Whether `path` lies in (or is) a system directory, where world-writable modes are privileged. */
export function underSystemDir(path: string): boolean {
  return SYSTEM_DIRS.some((dir) => path === dir || path.startsWith(`${dir}/`));
}

/**
 * Why a mode on `path` needs `allowPrivileged: true`, or undefined: setuid or setgid anywhere,
 * or world-writable under a system directory.
 */
export function privilegedModeReason(
  modeText: string,
  path: string | undefined,
): string | undefined {
  const bits = parseInt(modeText, 8);
  if ((bits & 0o4000) !== 0) return 'sets the setuid bit';
  if ((bits & 0o2000) !== 0) return 'sets the setgid bit';
  if ((bits & 0o002) !== 0 && path !== undefined && underSystemDir(path))
    return `is world-writable under a system directory`;
  return undefined;
}
