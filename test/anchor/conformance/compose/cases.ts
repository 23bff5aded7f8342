// The shape of a Compose conformance case (cases/*.yaml).
export interface ComposeCase {
  readonly name: string;
  /** Where the expected result comes from: the implementation and version, or the spec/test. */
  readonly source: string;
  /** For a real project's files: the repository, commit and path they come from. */
  readonly recipe?: string;
  readonly files: Record<string, string>;
  /** Compose files in `-f` order. Default: [compose.yaml]. */
  readonly composeFiles?: string[];
  /** The shell environment. */
  readonly environment?: Record<string, string>;
  /** `--project`. */
  readonly project?: string;
  /** `--profile`. */
  readonly profiles?: string[];
  /** The directory name of the project (the fallback project name). Default: project. */
  readonly directoryName?: string;
  /** The merged model, as `projectSnapshot` prints it (`name` only when the source shows it). */
  readonly expect?: {
    readonly name?: string;
    readonly services?: Record<string, unknown>;
    readonly ipv6Networks?: string[];
  };
  /** Variables the source warned about as unset. */
  readonly unsetVariables?: string[];
  /** Errors the loader must report (the source refused the input). */
  readonly expectErrors?: { code: string; file?: string; line?: number }[];
  /** What the source printed when it refused the input. */
  readonly recorded?: { exitCode: number; stderr: string };
}
