/**
 * What the API server and the container runtime refuse although the JSON Schema accepts it,
 * written from their rules (apimachinery's validation, the distribution reference grammar) so a
 * definition fails at `catalog check` instead of at apply or pull time. Each function returns
 * why a value is refused, or undefined when it is accepted. Pure.
 */

/** IANA service name, as `IsValidPortName` checks it: ≤ 15, [a-z0-9-], a letter, no `--`. */
export function portNameProblem(name: string): string | undefined {
  if (name.length === 0 || name.length > 15) return 'must be 1 to 15 characters long';
  if (!/^[-a-z0-9]+$/.test(name)) return 'may hold only lower-case letters, digits and "-"';
  if (name.includes('--')) return 'must not contain "--"';
  if (name.startsWith('-') || name.endsWith('-')) return 'must not start or end with "-"';
  if (!/[a-z]/.test(name)) return 'must contain at least one letter';
  return undefined;
}

const DNS_LABEL = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS_SUBDOMAIN = new RegExp(`^${DNS_LABEL}(\\.${DNS_LABEL})*$`);

/** A DNS subdomain (RFC 1123), as object names such as a StorageClass's must be. */
export function dnsSubdomainProblem(name: string): string | undefined {
  if (name.length === 0 || name.length > 253) return 'must be 1 to 253 characters long';
  if (!DNS_SUBDOMAIN.test(name))
    return 'must be lower-case letters, digits, "-" and ".", starting and ending with a letter or digit';
  return undefined;
}

/**
 * An extended resource name (a GPU): a qualified name with a domain prefix outside
 * `kubernetes.io`, e.g. `gpu.intel.com/i915`. Without the prefix the API server refuses the pod.
 */
export function extendedResourceProblem(name: string): string | undefined {
  const slash = name.indexOf('/');
  if (slash < 0) return 'needs a domain prefix, e.g. gpu.intel.com/i915';
  const prefix = name.slice(0, slash);
  const local = name.slice(slash + 1);
  if (dnsSubdomainProblem(prefix) !== undefined)
    return `its prefix ${JSON.stringify(prefix)} is not a DNS subdomain`;
  if (prefix === 'kubernetes.io' || prefix.endsWith('.kubernetes.io'))
    return 'the kubernetes.io domain is reserved for Kubernetes';
  if (
    local.length === 0 ||
    local.length > 63 ||
    !/^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/.test(local)
  )
    return `its name ${JSON.stringify(local)} is not a qualified name part`;
  return undefined;
}

/** A quantity whose value is zero (`0`, `0Gi`, `0.0`): a claim or VM of no size. */
export function isZeroQuantity(value: string): boolean {
  const match = /^[+]?([0-9]*\.?[0-9]*)(?:[eE][-+]?[0-9]+)?[A-Za-z]*$/.exec(value);
  return (
    match !== null && match[1] !== undefined && /[0-9]/.test(match[1]) && Number(match[1]) === 0
  );
}

/** A volume mount `subPath`: relative, and never climbing out with `..`. */
export function subPathProblem(subPath: string): string | undefined {
  if (subPath.startsWith('/')) return 'must be a relative path';
  if (subPath.split('/').includes('..')) return 'must not contain ".." (it would leave the volume)';
  return undefined;
}

// The distribution reference grammar (github.com/distribution/reference, regexp.go).
const DOMAIN_COMPONENT = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const DOMAIN = `${DOMAIN_COMPONENT}(?:\\.${DOMAIN_COMPONENT})*(?::[0-9]+)?`;
const PATH_COMPONENT = '[a-z0-9]+(?:(?:[._]|__|[-]+)[a-z0-9]+)*';
const TAG = '[\\w][\\w.-]{0,127}';
const DIGEST = '[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}';
const REFERENCE = new RegExp(
  `^((?:${DOMAIN}/)?${PATH_COMPONENT}(?:/${PATH_COMPONENT})*)(?::(${TAG}))?(?:@(${DIGEST}))?$`,
);
const DIGEST_LENGTH: Readonly<Record<string, number>> = { sha256: 64, sha384: 96, sha512: 128 };

/** An image reference the runtime can pull: the reference grammar, name ≤ 255, a known digest. */
export function imageReferenceProblem(image: string): string | undefined {
  const match = REFERENCE.exec(image);
  if (match === null) {
    return /[A-Z]/.test(image.split(/[:@]/)[0] ?? '') || /\/[^/:@]*[A-Z]/.test(image)
      ? 'is not a valid image reference (repository names must be lower-case)'
      : 'is not a valid image reference ([registry/]repository[:tag][@digest])';
  }
  const name = match[1] ?? '';
  if (name.length > 255) return 'has a repository name over 255 characters';
  const digest = match[3];
  if (digest !== undefined) {
    const [algorithm = '', hex = ''] = digest.split(':');
    const length = DIGEST_LENGTH[algorithm];
    if (length === undefined)
      return `uses the unsupported digest algorithm ${JSON.stringify(algorithm)}`;
    if (hex.length !== length)
      return `has a ${algorithm} digest of ${hex.length} hex digits; it needs ${length}`;
  }
  return undefined;
}
