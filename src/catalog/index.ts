// The catalog module's public contract: ServiceDefinition → Kubernetes manifests, with golden
// and conformance checks.
export type {
  KubeObject,
  Platform,
  RenderedService,
  ResolvedService,
  PortSpec,
  StorageSpec,
  WorkloadKind,
} from './types.js';
export type {
  CatalogInput,
  CatalogSchemas,
  LoadedCatalog,
  SourceFile,
} from './definition/load-catalog.js';
export { loadCatalog } from './definition/load-catalog.js';
export { resolvePlatform } from './definition/platform.js';
export type { RenderContext } from './render/render-service.js';
export { renderService } from './render/render-service.js';
export { emitFiles, objectFileName, toYaml } from './output/emit.js';
export type { CheckResult, ConformanceInput } from './conformance/model.js';
export { runConformance } from './conformance/run-conformance.js';
export { VPN_EGRESS_CHECK } from './conformance/check-vpn-egress.js';
export type { GoldenDiff } from './output/golden.js';
export { compareGolden } from './output/golden.js';
export type { CatalogRun, RunCatalogOptions } from './pipeline.js';
export { catalogDiagnostic, immutableFieldDiagnostics, runCatalog } from './pipeline.js';
export type { CheckJson, RenderJson } from './output/run-json.js';
export { checkJson, renderJson } from './output/run-json.js';
export type { ImmutableChange, ImmutableFieldContext } from './apply/immutable-fields.js';
export {
  compareObject,
  immutableChanges,
  immutableFieldDiagnostic,
} from './apply/immutable-fields.js';
export { CATALOG_CODES } from './codes.js';
export type { CatalogCode } from './codes.js';
export { catalogSchemas, readSchema as readCatalogSchema } from './io/schemas.js';
export { readCatalogDir, readAppsDir, readerDiagnostics } from './io/read-files.js';
export type { CatalogStageOptions } from './stage.js';
export { buildCatalogStage } from './stage.js';
export type { GraphEdge, GraphNode, ServiceGraph } from './graph/service-graph.js';
export { serviceGraph } from './graph/service-graph.js';
export type {
  GraphLegendEntry,
  ServiceGraphDrawing,
  ServiceGraphSvgOptions,
} from './graph/graph-svg.js';
export { drawServiceGraph, serviceGraphSvg } from './graph/graph-svg.js';
export { serviceGraphData } from './graph/graph-data.js';
export type { Flow, Reachability } from './conformance/reachability.js';
export { proveReachability } from './conformance/check-reachability.js';
export type { SchemaProblem, UpstreamSchemaSource, UpstreamValidators } from './crds/validate.js';
export { compileUpstream, validateUpstream } from './crds/validate.js';
export { upstreamDiagnostics } from './crds/diagnostics.js';
export { upstreamValidators } from './io/schemas.js';
