// The anchor module's public contract: the network-anchor daemon and the static Compose check.
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
export { runAnchorDaemon } from './run.js';
export type { ComposeFile, ComposeIssue, ComposeProject } from './compose/compose-model.js';
export { loadComposeProject } from './compose/compose-model.js';
export type { CheckReport, CheckedAnchor, CheckEntry, CheckOverlap } from './compose/check.js';
export { checkAnchors } from './compose/check.js';
export type { AnchorStageOptions, AnchorClaims } from './build-stage.js';
export { buildAnchorStage } from './build-stage.js';
