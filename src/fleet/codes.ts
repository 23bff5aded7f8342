/**
 * The fleet module's diagnostic codes, with what each means. Stable: never renamed or reused;
 * each has a row in docs/fleet.md ("Error codes") and is exercised by a test.
 */
export const FLEET_CODES = {
  FLEET_NO_FLEET: 'no `type: Fleet` document under the directory',
  FLEET_SEVERAL_FLEETS: 'more than one `type: Fleet` document',
  FLEET_INVALID_YAML: 'a file cannot be read as YAML (syntax, duplicate key, alias, tag, UTF-8)',
  FLEET_INVALID_DOCUMENT: 'a document is not a mapping',
  FLEET_MISSING_FIELD: 'a document lacks datum, type, name or desired',
  FLEET_UNSUPPORTED_VERSION: 'a document declares a schema version other than v1alpha1',
  FLEET_UNKNOWN_TYPE: 'a document has a type Datum does not know',
  FLEET_INVALID_NAME: 'a document name is not a valid name',
  FLEET_UNKNOWN_FIELD: 'a document or desired block has a field its type does not define',
  FLEET_DUPLICATE_NAME: 'two Hosts or two Layers share a name',
  FLEET_INVALID_LABEL: 'a Host label key or value breaks the rules',
  FLEET_RESERVED_LABEL: 'a Host declares a label under datum/',
  FLEET_INVALID_PRECEDENCE: 'a Layer precedence is not a YAML integer',
  FLEET_INVALID_MATCH: 'a Layer match block cannot be read',
  FLEET_MATCH_WARNING: 'a Layer match block is readable but suspicious',
  FLEET_INVALID_FIELD: 'a desired field has the wrong kind of value',
  FLEET_INVALID_REFERENCE: 'a requires/restartOn/reloadOn entry is not a Type[name] reference',
  FLEET_RESTART_AND_RELOAD: 'a resource has both restartOn and reloadOn',
  FLEET_TWO_LAYERS: 'two Layer documents in one directory',
  FLEET_NO_LAYER: 'a resource document has no Layer above it',
  FLEET_DUPLICATE_REFERENCE: 'one layer declares a reference twice',
  FLEET_CONFLICT: 'equal-precedence layers set one field to different values',
  FLEET_UNDECLARED_LABEL: 'a placeholder names a label the host does not declare',
  FLEET_MISSING_SOURCE: 'a File source or template names a file that does not exist',
  FLEET_INVALID_RESOURCE: 'a merged resource breaks a rule that spans fields',
  FLEET_MISSING_IDENTITY: 'a merged resource has no target identity',
  FLEET_DUPLICATE_TARGET: 'two resources of one type manage the same target',
  FLEET_PROTECTED_TARGET:
    "a resource targets the Datum agent's own files, package or service, which desired state may never manage",
  FLEET_UNRESOLVED_REFERENCE: 'an edge names a resource the host does not get',
  FLEET_SELF_DEPENDENCY: 'a resource depends on itself',
  FLEET_DEPENDENCY_CYCLE: 'the dependency edges form a cycle',
  FLEET_MATCHER_NEVER_MATCHES: 'a Layer matcher contradicts itself and can never match',
  FLEET_LAYER_MATCHES_NO_HOST: 'a Layer matches no declared host (warning)',
  FLEET_SYMLINK_SKIPPED: 'a YAML file is a symbolic link and is not read (warning)',
  FLEET_UNKNOWN_HOST: 'a command named a host the fleet lacks',
  FLEET_UNKNOWN_LAYER: 'a command named a layer the fleet lacks',
  FLEET_UNKNOWN_RESOURCE: 'a command named a resource no layer declares',
  FLEET_INVALID_HOST: 'the named Host document has errors',
  FLEET_UNREADABLE: 'the fleet directory or a file in it cannot be read',
  FLEET_NOT_A_DIRECTORY: 'the fleet path is not a directory',
  FLEET_FILE_TOO_LARGE: 'a YAML file is over the size limit and was not read',
  FLEET_GIT_UNAVAILABLE: 'git is not installed',
  FLEET_GIT_FAILED: 'git could not read a revision',
  FLEET_BAD_REVISION: 'a revision does not exist or is not a commit',
  FLEET_INVALID_SHARD:
    '--shard is not I/N with 1 <= I <= N, or --threads is not a positive integer',
  FLEET_INVALID_SHARD_INDEX:
    '--shards N without a JOB_COMPLETION_INDEX from 0 to N-1 in the environment',
  FLEET_NOT_A_SHARD:
    'a fleet merge input is not the --json output of a sharded validate or resolve',
  FLEET_SHARD_UNREADABLE: 'a fleet merge input cannot be read',
  FLEET_SHARD_KIND_MISMATCH: 'fleet merge was given shards of validate and of resolve',
  FLEET_SHARD_COUNT_MISMATCH:
    'fleet merge was given shards of different counts (I/N with different N)',
  FLEET_SHARD_REVISION_MISMATCH:
    'fleet merge was given shards resolved from different revisions of the repository',
  FLEET_SHARD_MISSING: 'fleet merge lacks the output of some shard',
  FLEET_SHARD_DUPLICATE: 'fleet merge was given one shard twice',
  FLEET_INVALID_SELECTOR: '--selector cannot be parsed in any selector syntax',
  FLEET_INVALID_FORMAT: 'an affected output option is not understood (--format, --show-resources)',
} as const;

export type FleetCode = keyof typeof FLEET_CODES;

declare module '../base/codes.js' {
  interface CodeRegistry {
    fleet: typeof FLEET_CODES;
  }
}
