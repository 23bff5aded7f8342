/**
 * The one YAML rule resolution shares with loading, kept apart from the YAML reader so that
 * resolving (in a worker thread too) does not load a YAML parser.
 */
import type { YamlValue } from './yaml-values.js';

/** True for a plain scalar YAML reads as null (`key:` with nothing, `~`, `null`). */
export function isNullScalar(value: YamlValue): boolean {
  return (
    value.kind === 'scalar' &&
    !value.quoted &&
    (value.text === '' || value.text === '~' || /^(null|Null|NULL)$/.test(value.text))
  );
}
