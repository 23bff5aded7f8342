// The shared edges every module uses: errors, diagnostics, terminal-safe text, YAML with
// positions, the safe repository reader and the owned output writer. Written once, here.
export { LabelwiseError, quote } from './errors.js';
export { maxOf, pushAll } from './arrays.js';
export { MAX_MESSAGE, boundText } from './bounded.js';
export type { SourceRef, ErrorKind } from './errors.js';
export {
  compareDiagnostics,
  countDiagnostics,
  diagnosticFromError,
  diagnosticsJson,
  formatDiagnostic,
  formatDiagnostics,
  formatLocation,
  normalizeDiagnostic,
  sortDiagnostics,
} from './diagnostic.js';
export type { Diagnostic, DiagnosticsJson, Severity } from './diagnostic.js';
export type { AcceptRule, Acceptance, AcceptanceSources } from './accepted.js';
export { ACCEPT_ANNOTATION_PREFIX, acceptanceOf, acceptedCodes, markAccepted } from './accepted.js';
export { compareText, escapeBytes, escapeControl, excerptLine, hasControl } from './text.js';
export { YAML_DEFAULTS, formatYamlPath, parseYamlDocument, parseYamlDocuments } from './yaml.js';
export type { Position, YamlDocument, YamlOptions, YamlResult } from './yaml.js';
export { failsafeValue } from './yaml-text.js';
export { MANIFEST_YAML_OPTIONS, ManifestYamlWriter } from './yaml-write.js';
export {
  DEFAULT_MAX_FILE_BYTES,
  RepoReader,
  SYSTEM_TREES,
  isSystemPath,
  isWithin,
} from './io/repo-reader.js';
export type { ListOptions, RepoEntry, RepoReaderOptions } from './io/repo-reader.js';
export { readStreamWithin, readUserFile } from './io/user-file.js';
export type { UserFileOptions } from './io/user-file.js';
export {
  MANIFEST,
  checkOutputPath,
  checkOutputTarget,
  foreignFiles,
  writeOwnedDirectory,
} from './io/output-writer.js';
export type { OwnedWriteOptions } from './io/output-writer.js';
export type { ModuleName, StageResult } from './stage.js';
export { SARIF_SCHEMA, toSarif } from './formats/sarif.js';
export type { SarifOptions } from './formats/sarif.js';
export { toJunit } from './formats/junit.js';
export type { JunitOptions } from './formats/junit.js';
export { gitEnvironment, runGit, runGitSync } from './io/git.js';
export type { GitOptions, GitResult } from './io/git.js';
export { GitReadError, listCommitTree, readBlobs } from './io/git-tree.js';
export type { GitTreeEntry } from './io/git-tree.js';
export { sweepStaleSnapshots, writeCommitSnapshot } from './io/git-snapshot.js';
export type { CommitSnapshot, SnapshotOptions } from './io/git-snapshot.js';
