/**
 * Runs each module's build stage over the parts found in a repository. Only this folder and
 * `src/cli` see every module; the modules never import each other.
 */
import { LabelwiseError, diagnosticFromError } from '../base/index.js';
import type { ModuleName, RepoReader, StageResult } from '../base/index.js';
import type { ListedProject } from '../anchor/index.js';
import type { PolicyStageOptions } from '../policy/index.js';
import type { RepoParts } from './detect.js';

export interface StageRun {
  readonly module: ModuleName;
  /** The directory the stage read, relative to the repository. */
  readonly input: string;
  readonly result: StageResult;
  readonly ms: number;
}

interface StageSpec {
  readonly module: ModuleName;
  readonly dir: string;
  readonly run: () => Promise<StageResult>;
}

/** What the anchor stage takes beyond the parts: see `AnchorStageOptions`. */
export interface ComposeOptions {
  readonly rootName?: string;
  readonly projects?: readonly ListedProject[];
}

/** What the policy stage takes from `labelwise.yaml`: see `PolicyStageOptions`. */
export type PolicyOptions = Pick<
  PolicyStageOptions,
  'namespace' | 'folderNamespaces' | 'settings' | 'accept'
>;

/** The stages to run for the parts present, in a fixed order. */
export function plannedStages(
  parts: RepoParts,
  root: string,
  reader: RepoReader,
  compose: ComposeOptions = {},
  policy: PolicyOptions = {},
): StageSpec[] {
  const stages: StageSpec[] = [];
  // Every stage gets the one repository reader (it never leaves the repository and never reads
  // labelwise's output); a stage whose options do not name it yet reads with its own loader.
  const shared = { root, reader };
  if (parts.fleet !== undefined) {
    const dir = parts.fleet;
    stages.push({
      module: 'fleet',
      dir,
      run: async () => (await import('../fleet/index.js')).buildFleetStage(dir, shared),
    });
  }
  if (parts.catalog !== undefined) {
    const { dir, apps } = parts.catalog;
    stages.push({
      module: 'catalog',
      dir,
      run: async () =>
        (await import('../catalog/index.js')).buildCatalogStage(
          dir,
          apps === undefined ? shared : { ...shared, apps },
        ),
    });
  }
  if (parts.policy !== undefined) {
    const dir = parts.policy;
    stages.push({
      module: 'policy',
      dir,
      run: async () =>
        (await import('../policy/index.js')).buildPolicyStage(dir, { ...shared, ...policy }),
    });
  }
  if (parts.compose !== undefined) {
    const dir = parts.compose;
    stages.push({
      module: 'anchor',
      dir,
      run: async () =>
        (await import('../anchor/index.js')).buildAnchorStage(dir, { ...shared, ...compose }),
    });
  }
  return stages;
}

/**
 * Runs one stage. A user error that stops a stage (an unreadable directory, say) becomes an
 * error finding so the other stages still run and the report lists everything; bugs propagate.
 */
export async function runStage(stage: StageSpec, relativeInput: string): Promise<StageRun> {
  const start = process.hrtime.bigint();
  let result: StageResult;
  try {
    result = await stage.run();
  } catch (error) {
    if (!(error instanceof LabelwiseError)) throw error;
    result = { diagnostics: [diagnosticFromError(error, stage.module)], outputs: {}, counts: {} };
  }
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  return { module: stage.module, input: relativeInput, result, ms };
}
