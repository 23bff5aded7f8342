// The anchor module's public contract: the network-anchor daemon and the static Compose check.
// Importing it never loads the Docker client: the static check and the build stage come from
// ./check.js, and the daemon's I/O (dockerode, nft, HTTP) is imported only when it is run.
export type { AnchorConfig, DockerEndpoint, LoadedConfig, LogLevel } from './config.js';
export { loadConfig } from './config.js';
export type {
  ContainerInfo,
  DnatEntry,
  ExposeEntry,
  Family,
  NetworkAttachment,
  Notice,
  Proto,
  SelfInfo,
  Snapshot,
} from './model.js';
export { parseExpose, parseExposeV6 } from './expose.js';
export type { SharedNetworkChoice, SharedNetworkInput } from './shared-network.js';
export { chooseSharedNetwork } from './shared-network.js';
export type { BackendClaim, Plan, PlanOptions, PortConflict } from './plan.js';
export { plan } from './plan.js';
export type { RenderOptions } from './nft-script.js';
export { renderNftScript, renderDeleteScript } from './nft-script.js';
export type { ConntrackFlush } from './conntrack-plan.js';
export { conntrackFlushes } from './conntrack-plan.js';
export type { DaemonDeps, ReconcileOutcome } from './daemon.js';
export { AnchorDaemon } from './daemon.js';
export type { RunOptions } from './run.js';
export { runAnchorDaemon } from './run-lazy.js';
export type { AnchorMode } from './mode.js';
export { parseLogLevel, selectMode } from './mode.js';
export type { DefaultRoute, Resolver, RoutePort, ServiceAnchorDeps } from './service-anchor.js';
export { ServiceAnchor, pickGateways } from './service-anchor.js';
export type { ServiceAnchorConfig } from './service-anchor-config.js';
export { loadServiceAnchorConfig, parseGatewayIps } from './service-anchor-config.js';
export type { PortClaim, PortRequest } from './port-claims.js';
export { claimPorts } from './port-claims.js';
export type {
  CheckEntry,
  CheckOverlap,
  CheckReport,
  CheckedAnchor,
  ComposeCheckOptions,
  ComposeFileSystem,
  ComposeLoadOptions,
  ComposeLoadResult,
  ComposeProject,
  ComposeService,
  Located,
} from './check.js';
export type { CheckInput } from './io/compose-files.js';
export { openCheckInput } from './io/compose-files.js';
export type { AnchorClaims, AnchorStageOptions, ListedProject } from './stage.js';
export { buildAnchorStage } from './stage.js';
export {
  checkAnchors,
  checkComposeProject,
  checkReportJson,
  loadComposeProject,
  memoryFileSystem,
  projectSnapshot,
} from './check.js';
