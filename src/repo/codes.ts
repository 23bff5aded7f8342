/** The codes of `labelwise build` and of the command line itself (docs/errors.md). */
export const REPO_CODES = {
  BUILD_NO_REPOSITORY: 'the REPO given to labelwise build is not a directory',
  BUILD_NOTHING_FOUND: 'the repository holds no part labelwise knows',
  BUILD_CONFIG_INVALID: 'labelwise.yaml cannot be read or names something unknown',
  CLI_USAGE: 'flags that cannot go together, or a required one missing',
  CLI_INTERNAL_ERROR:
    'labelwise failed on a bug (exit 70); the document says so, stderr has the stack',
  DIFF_GIT_UNAVAILABLE: 'git is not installed or cannot run',
  DIFF_NOT_A_REPOSITORY: 'the repository given to diff is not inside a git work tree',
  DIFF_BAD_REVISION: 'a revision given to diff does not name a commit',
  DIFF_GIT_FAILED: 'git failed while reading a revision',
} as const;

export type RepoCode = keyof typeof REPO_CODES;

declare module '../base/codes.js' {
  interface CodeRegistry {
    repo: typeof REPO_CODES;
  }
}
