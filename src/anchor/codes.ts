/**
 * The anchor's diagnostic codes, with what each means. Stable: never renamed or reused; each has
 * a row in docs/anchor.md § Error codes and is exercised by at least one test
 * (test/repo/codes.test.ts checks both). The daemon's codes and the static check's codes are
 * kept in separate lists.
 */

// ---- Static Compose check (`labelwise anchor check`, the build stage) ----------------------
export const ANCHOR_CHECK_CODES = {
  ANCHOR_SCOPE_OVERLAP: 'two anchors can claim the same container (a witness label set is given)',
  ANCHOR_PORT_CONFLICT: 'two backends of one anchor expose the same protocol and port',
  ANCHOR_UNCLAIMED_BACKEND: 'a backend no anchor of the project claims (warning)',
  ANCHOR_COMPOSE_YAML:
    'a Compose file cannot be read as YAML (syntax, duplicate key, unknown alias, bad merge source, expansion limit)',
  ANCHOR_COMPOSE_SHAPE:
    'a Compose file is YAML but not Compose (a service is not a mapping, a boolean field is not a boolean)',
  ANCHOR_COMPOSE_VARIABLE:
    'interpolation: a required variable is missing, a template is invalid, or (warning) a variable is unset',
  ANCHOR_COMPOSE_EXTENDS: '`extends:` names no service, an unknown one, or forms a cycle',
  ANCHOR_COMPOSE_ENV_FILE: '`.env` or an `env_file:` file has a line that cannot be read',
  ANCHOR_COMPOSE_UNSUPPORTED: '`include:` is not followed (warning)',
  ANCHOR_COMPOSE_UNREADABLE: 'a Compose file named on the command line cannot be read (exit 3)',
  ANCHOR_INVALID_PROJECT_NAME:
    'the project name (--project, COMPOSE_PROJECT_NAME) is invalid, or empty after normalising',
} as const;
// ---- end of the static check's codes -------------------------------------------------------

export type AnchorCheckCode = keyof typeof ANCHOR_CHECK_CODES;
