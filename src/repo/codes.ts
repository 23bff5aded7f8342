/** The codes of `labelwise build` and of the command line itself (docs/errors.md). */
export const REPO_CODES = {
  BUILD_NO_REPOSITORY: 'the REPO given to labelwise build is not a directory',
  BUILD_NOTHING_FOUND: 'the repository holds no part labelwise knows',
  BUILD_CONFIG_INVALID: 'labelwise.yaml cannot be read or names something unknown',
  CLI_USAGE: 'flags that cannot go together, or a required one missing',
} as const;

export type RepoCode = keyof typeof REPO_CODES;
