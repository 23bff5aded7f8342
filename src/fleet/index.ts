// The fleet module's public contract: load a Datum v1alpha1 repository, resolve and explain hosts.
export type {
  Fleet,
  FleetProblem,
  HostDoc,
  LayerDoc,
  ResourceDoc,
  HostManifest,
  ResolvedResource,
  Provenance,
  DesiredValue,
  ResourceType,
} from './model.js';
export type { FleetFile, LoadOptions } from './documents/load-fleet.js';
export { loadFleet } from './documents/load-fleet.js';
export type { PreparedFleet } from './resolve/prepare.js';
export { prepareFleet, hostLabels } from './resolve/prepare.js';
export type { ResolveOptions } from './resolve/resolve-host.js';
export { resolveHost } from './resolve/resolve-host.js';
export { manifestDigest, canonicalManifest, shortDigest } from './resolve/digest.js';
export type { GroupedProblem, ValidationReport, ValidateOptions } from './validate.js';
export { validateFleet, lintMatchers, hostIndex, fleetDiagnostic } from './validate.js';
export type { ResourceExplanation } from './explain.js';
export { explainResource } from './explain.js';
export type { AffectedReport, HostChange } from './affected.js';
export { compareDigests } from './affected.js';
export type { FieldChange, FleetChangesOptions, HostChanges, ResourceChange } from './changes.js';
export { fleetChanges } from './changes.js';
export { describeField, formatChangesMarkdown, formatChangesText } from './changes-text.js';
export type { Shard } from './shard.js';
export { parseShard, shardHosts, shardOf } from './shard.js';
export { MAX_PLAIN, hostFileName, hostOutputPath } from './host-files.js';
export type { LayerReach, ValidateJson } from './report-json.js';
export {
  fleetDiagnosticsJson,
  layerReach,
  problemDiagnostic,
  validateJson,
} from './report-json.js';
export type {
  AffectedJson,
  ExplainJson,
  HostsJson,
  HostsQuery,
  ListedHost,
} from './inspect-json.js';
export { affectedJson, explainJson, hostsJson } from './inspect-json.js';
export { FLEET_CODES } from './codes.js';
export type { FleetCode } from './codes.js';
export { SCHEMA_VERSION } from './documents/parse-document.js';
export type { ManifestJson, ResolvedHostsJson } from './manifest-json.js';
export { manifestJson, resolvedHostJson, resolvedHostsJson } from './manifest-json.js';
export { loadFleetDir, loadFleetAt, loadFleetSource } from './io/load-dir.js';
export type { FleetSource } from './io/load-dir.js';
export {
  defaultThreads,
  resolveInParallel,
  validateInParallel,
  workerCount,
  workerLimits,
} from './io/parallel.js';
export type { HostResult, ParallelOptions } from './io/parallel.js';
export { openFleetReader, readFleetTree } from './io/read-tree.js';
export type { FleetStageData, FleetStageOptions, FleetMatrix } from './stage.js';
export { buildFleetStage } from './stage.js';
export { affectedNotes, layerHint, selectorOf, threadsOf } from './command-input.js';
export { DATUM_SCHEMA_ID, datumDocumentSchema } from './documents/json-schema.js';
export type { ShardFlags } from './shard.js';
export { shardOfRun } from './shard.js';
export type { ShardJson } from './revision.js';
export { fleetRevision } from './revision.js';
export type { MergedShards, ShardKind, ShardOutput } from './merge.js';
export { mergeShards, readShardOutput } from './merge.js';
