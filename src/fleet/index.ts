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
export { validateFleet, lintMatchers, hostIndex, formatProblem } from './validate.js';
export type { ResourceExplanation } from './explain.js';
export { explainResource } from './explain.js';
export type { AffectedReport, HostChange } from './affected.js';
export { compareDigests } from './affected.js';
export type { ManifestJson } from './manifest-json.js';
export { manifestJson } from './manifest-json.js';
export { loadFleetDir, loadFleetAt } from './io/load-dir.js';
export type { FleetStageOptions, FleetMatrix } from './build-stage.js';
export { buildFleetStage } from './build-stage.js';
