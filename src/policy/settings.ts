/** Cluster settings: defaults, and parsing from flags or a settings file. */
import { LabelwiseError } from '../base/errors.js';
import { parseCidr } from './networks.js';
import { DEFAULT_POLICIES } from './types.js';
import type { ClusterSettings, DefaultPolicy } from './types.js';

/** Linkerd's install defaults. */
export const DEFAULT_SETTINGS: ClusterSettings = Object.freeze({
  defaultPolicy: 'all-unauthenticated',
  clusterNetworks: Object.freeze([
    '10.0.0.0/8',
    '100.64.0.0/10',
    '172.16.0.0/12',
    '192.168.0.0/16',
    'fd00::/8',
  ]),
  probeNetworks: Object.freeze(['0.0.0.0/0', '::/0']),
  identityDomain: 'cluster.local',
  controlPlaneNamespace: 'linkerd',
});

/** Settings as text, the way flags and settings files give them. Every field optional. */
export interface SettingsInput {
  defaultPolicy?: string;
  /** Comma-separated CIDRs, or a list. */
  clusterNetworks?: string | readonly string[];
  probeNetworks?: string | readonly string[];
  identityDomain?: string;
  controlPlaneNamespace?: string;
}

/** Is `name` one of Linkerd's default policy names? */
export function isDefaultPolicy(name: string): name is DefaultPolicy {
  return (DEFAULT_POLICIES as readonly string[]).includes(name);
}

function cidrList(value: string | readonly string[], field: string): string[] {
  const list =
    typeof value === 'string'
      ? value
          .split(',')
          .map((s) => s.trim())
          .filter((s) => s !== '')
      : [...value];
  for (const cidr of list) {
    if (parseCidr(cidr) === undefined) {
      throw new LabelwiseError(
        'POLICY_INVALID_SETTING',
        `${field}: ${JSON.stringify(cidr)} is not a CIDR`,
        { source: { path: field }, hint: 'write networks like 10.0.0.0/8,fd00::/8' },
      );
    }
  }
  return list;
}

const DNS = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/**
 * Resolves settings over {@link DEFAULT_SETTINGS}. Throws a LabelwiseError
 * (`POLICY_INVALID_SETTING`) naming the field for a bad value.
 */
export function resolveSettings(input: SettingsInput = {}): ClusterSettings {
  const defaultPolicy = input.defaultPolicy ?? DEFAULT_SETTINGS.defaultPolicy;
  if (!isDefaultPolicy(defaultPolicy)) {
    throw new LabelwiseError(
      'POLICY_INVALID_SETTING',
      `default policy ${JSON.stringify(defaultPolicy)} is not one of ${DEFAULT_POLICIES.join(', ')}`,
      { source: { path: 'defaultPolicy' } },
    );
  }
  for (const field of ['identityDomain', 'controlPlaneNamespace'] as const) {
    const value = input[field];
    if (value !== undefined && !DNS.test(value)) {
      throw new LabelwiseError(
        'POLICY_INVALID_SETTING',
        `${field} ${JSON.stringify(value)} must be a lowercase DNS name`,
        { source: { path: field } },
      );
    }
  }
  return Object.freeze({
    defaultPolicy,
    clusterNetworks: Object.freeze(
      input.clusterNetworks === undefined
        ? [...DEFAULT_SETTINGS.clusterNetworks]
        : cidrList(input.clusterNetworks, 'clusterNetworks'),
    ),
    probeNetworks: Object.freeze(
      input.probeNetworks === undefined
        ? [...DEFAULT_SETTINGS.probeNetworks]
        : cidrList(input.probeNetworks, 'probeNetworks'),
    ),
    identityDomain: input.identityDomain ?? DEFAULT_SETTINGS.identityDomain,
    controlPlaneNamespace: input.controlPlaneNamespace ?? DEFAULT_SETTINGS.controlPlaneNamespace,
  });
}
