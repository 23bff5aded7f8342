/**
 * The anchor's diagnostic codes, with what each means. Stable: never renamed or reused; each has
 * a row in docs/anchor.md § Error codes and is exercised by at least one test
 * (test/repo/codes.test.ts checks both). The daemon's codes and the static check's codes are
 * kept in separate lists.
 */

// ---- The daemons (`labelwise anchor run|network-anchor|service-anchor`) --------------------
export const ANCHOR_DAEMON_CODES = {
  ANCHOR_INVALID_CONFIG: 'an environment variable is missing or invalid (the message names it)',
  ANCHOR_MODE_NOT_SUPPORTED:
    'an anchord mode or address mode this anchor does not implement (dhcp-refresh, rebinders, doctor)',
  ANCHOR_INVALID_EXPOSE: "a backend's anchord.expose label is invalid (the container is skipped)",
  ANCHOR_INVALID_EXPOSE_V6: "a backend's anchord.expose.v6 label is invalid",
  ANCHOR_SHARED_NETWORK_NOT_ATTACHED: "ANCHORD_SHARED_NETWORK is not one of the anchor's networks",
  ANCHOR_NO_SHARED_NETWORK: 'the anchor has no network besides the outside one',
  ANCHOR_EXT_NETWORK_NOT_ATTACHED: 'the anchor is not attached to ANCHORD_EXT_NETWORK',
  ANCHOR_EXT_IFACE_NOT_FOUND:
    'no local interface has the MAC Docker reports for the outside network',
  ANCHOR_SELF_NOT_FOUND: 'the anchor cannot find its own container through the Docker API',
  ANCHOR_DOCKER_UNAVAILABLE: 'the Docker API failed (retried; the last rules stay)',
  ANCHOR_TOOL_MISSING: 'nft, conntrack or ip is not installed',
  ANCHOR_NFT_FAILED: 'the kernel refused an nft transaction (retried)',
  ANCHOR_CONNTRACK_FAILED: 'conntrack -D failed (logged; the rules still apply)',
  ANCHOR_ROUTE_FAILED: "the service-anchor's default route could not be changed (retried)",
  ANCHOR_METRICS_LISTEN: 'the metrics and health address cannot be bound (fatal)',
  ANCHOR_DHCP_FAILED:
    'dhcp-refresh: UDP port 68 cannot be bound or `ip` cannot configure the leased address (logged; retried)',
} as const;
// ---- end of the daemons' codes ---------------------------------------------------------------

export type AnchorDaemonCode = keyof typeof ANCHOR_DAEMON_CODES;

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
  ANCHOR_SCOPE_MISLEADING:
    'an equality scope reads like another operator (`role!=ldap` is key `role!`) (warning)',
  ANCHOR_COMPOSE_LEGACY_FORMAT:
    'a Compose file in the legacy format (version 1: services at the top level, no `services:`), which no service is read from (warning)',
  ANCHOR_COMPOSE_UNSUPPORTED: 'a remote `include:` or `extends:` is not fetched',
  ANCHOR_COMPOSE_UNREADABLE: 'a Compose file named on the command line cannot be read (exit 3)',
  ANCHOR_INVALID_PROJECT_NAME:
    'the project name (--project, COMPOSE_PROJECT_NAME) is invalid, or empty after normalising',
} as const;
// ---- end of the static check's codes -------------------------------------------------------

export type AnchorCheckCode = keyof typeof ANCHOR_CHECK_CODES;

declare module '../base/codes.js' {
  interface CodeRegistry {
    anchorDaemon: typeof ANCHOR_DAEMON_CODES;
    anchorCheck: typeof ANCHOR_CHECK_CODES;
  }
}
