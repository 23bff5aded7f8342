/**
 * Checks on a merged resource, where a field set by one layer meets fields set by others:
 * required fields (some only unless `state: absent`), File content sources (at most one), an
 * absent File setting content, owner, mode or validate, a present Repository's `signingKey` xor
 * `unsigned: true`, and setuid/setgid or world-writable modes
 * without `allowPrivileged: true`.
 */
import type { DesiredMap, ResourceType } from '../model.js';
import {
  CONTENT_SOURCES,
  RESOURCE_SPECS,
  privilegedModeReason,
} from '../documents/resource-fields.js';

/** Messages (without location) for one merged resource, in a fixed order. */
export function checkResource(
  type: ResourceType,
  ref: string,
  desired: DesiredMap,
  /** Fields whose substitution failed: already reported, so not reported again as missing. */
  failed: ReadonlySet<string> = new Set(),
): string[] {
  const spec = RESOURCE_SPECS[type];
  const out: string[] = [];
  const present = desired.state !== 'absent';
  for (const field of spec.required)
    if (desired[field] === undefined && !failed.has(field))
      out.push(`${ref} is missing required field ${field}`);
  if (present)
    for (const field of spec.requiredWhenPresent ?? [])
      if (desired[field] === undefined && !failed.has(field))
        out.push(`${ref} is missing desired.${field}, which is required unless it is absent`);
  if (type === 'File') {
    const sources = CONTENT_SOURCES.filter((field) => desired[field] !== undefined);
    if (sources.length > 1)
      out.push(
        `${ref} sets ${sources.join(' and ')}; a File takes its content from one of content, source, template or secretRef`,
      );
    if (desired.state === 'absent') {
      const set = [...CONTENT_SOURCES, 'owner', 'group', 'mode', 'validate'].filter(
        (field) => desired[field] !== undefined,
      );
      if (set.length > 0)
        out.push(
          `${ref} is absent but sets ${set.join(', ')}; an absent File sets no content, owner, mode or validate`,
        );
    }
  }
  // An absent Repository is being removed: it trusts nothing, so it needs no key.
  if (type === 'Repository' && present) {
    const signed = desired.signingKey !== undefined;
    const unsigned = desired.unsigned === true;
    if (signed && unsigned) out.push(`${ref} sets both signingKey and unsigned: true; choose one`);
    if (!signed && !unsigned)
      out.push(`${ref} needs a signingKey, or unsigned: true to accept an unsigned repository`);
  }
  if (
    (type === 'File' || type === 'Directory') &&
    typeof desired.mode === 'string' &&
    desired.allowPrivileged !== true
  ) {
    const reason = privilegedModeReason(
      desired.mode,
      typeof desired.path === 'string' ? desired.path : undefined,
    );
    if (reason !== undefined)
      out.push(
        `${ref} mode ${JSON.stringify(desired.mode)} ${reason}; set allowPrivileged: true if that is intended`,
      );
  }
  return out;
}
