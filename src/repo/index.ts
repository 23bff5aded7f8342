// `labelwise build`: one pass over a whole repository.
export type { RepoParts } from './detect.js';
export { detectParts } from './detect.js';
export type { StageRun } from './stages.js';
export { plannedStages, runStage } from './stages.js';
export type { BuildReport, ModuleSummary } from './build-report.js';
export { buildReport, findingLocation } from './build-report.js';
export { escapeHtml, renderReportHtml, renderReportPages, reportData } from './report/index.js';
export type { PageContext, ReportData, ReportOptions } from './report/index.js';
export { inputFolders, runBuild } from './build-run.js';
export type { BuildOptions, BuildRun } from './build-run.js';
export {
  BUILD_MODULES,
  CONFIG_FILE,
  isSelected,
  parseModuleList,
  readRepoConfig,
} from './config.js';
export type { PartPaths, RepoConfig } from './config.js';
export { POLICY_SETTING_KEYS } from './config-policy.js';
export { compareBuilds } from './diff/compare.js';
export type { Side } from './diff/compare.js';
export type { RepoDiff } from './diff/model.js';
export { renderDiffText } from './diff/render-text.js';
export { MARKDOWN_LIMIT, renderDiffMarkdown } from './diff/render-markdown.js';
export { CONFIG_SCHEMA_ID, repoConfigSchema } from './config-schema.js';
export { diffOutputFiles, runDiff } from './diff-run.js';
export type { DiffOptions, DiffRun } from './diff-run.js';
export { buildOutputFiles, linkBase, outputFiles } from './output-files.js';
export type { OutputFilesOptions } from './output-files.js';
export { currentRevision } from './io/git-snapshot.js';
