/**
 * Rules over the platform's settings, reported once at platform.yaml and its line rather than at
 * every definition they affect: what the API server or the runtime would refuse (errors), and
 * settings the rendered objects cannot honour as written (warnings).
 */
import type { Code } from '../../base/codes.js';
import { LabelwiseError, quote } from '../../base/errors.js';
import {
  dnsSubdomainProblem,
  extendedResourceProblem,
  imageReferenceProblem,
} from '../apply/api-validation.js';
import { excludedByFamily } from '../render/vpn-egress.js';
import type { Platform } from '../types.js';
import type { YamlSource } from './yaml-source.js';
import { formatPath } from './yaml-source.js';

function diagnostic(
  source: YamlSource,
  code: Code,
  path: (string | number)[],
  message: string,
  hint?: string,
): LabelwiseError {
  const shown = formatPath(path);
  return new LabelwiseError(code, `${shown}: ${message}`, {
    source: { file: source.file, ...source.locate(path), path: shown },
    hint,
  });
}

/** What the API server or the runtime would refuse in the platform's settings. */
export function platformRules(source: YamlSource, platform: Platform): LabelwiseError[] {
  const errors: LabelwiseError[] = [];
  const fail = (code: Code, path: (string | number)[], message: string) =>
    errors.push(diagnostic(source, code, path, message));
  const storageClass = dnsSubdomainProblem(platform.longhorn.storageClass);
  if (storageClass !== undefined)
    fail(
      'CATALOG_PLATFORM_INVALID',
      ['longhorn', 'storageClass'],
      `the StorageClass name ${quote(platform.longhorn.storageClass)} ${storageClass}`,
    );
  for (const [gpu, resource] of Object.entries(platform.gpu)) {
    const problem = extendedResourceProblem(resource);
    if (problem !== undefined)
      fail(
        'CATALOG_PLATFORM_INVALID',
        ['gpu', gpu],
        `the resource name ${quote(resource)} ${problem}; the API server refuses the pod`,
      );
  }
  const image = imageReferenceProblem(platform.forwardAuth.image);
  if (image !== undefined)
    fail(
      'CATALOG_IMAGE_REFERENCE',
      ['forwardAuth', 'image'],
      `${quote(platform.forwardAuth.image)} ${image}`,
    );
  return errors;
}

/**
 * An IPv6 excluded CIDR cannot go into the egress gateway policy (IPv4 only) and is not allowed
 * directly either: a VPN-class pod reaches no IPv6 address at all, so the entry has no effect.
 */
export function platformWarnings(source: YamlSource, platform: Platform): LabelwiseError[] {
  const { ipv6 } = excludedByFamily(platform);
  return platform.vpn.excludedCIDRs.flatMap((cidr, i) =>
    ipv6.includes(cidr)
      ? [
          diagnostic(
            source,
            'CATALOG_VPN_EXCLUDED_IPV6',
            ['vpn', 'excludedCIDRs', i],
            `the IPv6 block ${quote(cidr)} is left out of every CiliumEgressGatewayPolicy, which takes IPv4 CIDRs only; VPN-class pods reach no IPv6 address, so it has no effect`,
            'remove it, or reach that network from a service with egress: internet',
          ),
        ]
      : [],
  );
}
