/**
 * The positioned value tree `yaml-values.ts` reads YAML text into, and the one YAML rule
 * resolution shares with loading. Kept apart from the reader so that resolving (in a worker
 * thread too) does not load a YAML parser.
 */

/** A scalar with its literal text. `quoted` covers quoted, block (`|`, `>`) and `!!str` scalars. */
export interface YamlScalar {
  readonly kind: 'scalar';
  readonly text: string;
  readonly quoted: boolean;
  readonly line: number;
}

export interface YamlList {
  readonly kind: 'list';
  readonly items: readonly YamlValue[];
  readonly line: number;
}

/** A mapping; keys are scalar texts, in source order. */
export interface YamlMap {
  readonly kind: 'map';
  readonly entries: ReadonlyMap<string, { readonly value: YamlValue; readonly line: number }>;
  readonly line: number;
}

export type YamlValue = YamlScalar | YamlList | YamlMap;

/** True for a plain scalar YAML reads as null (`key:` with nothing, `~`, `null`). */
export function isNullScalar(value: YamlValue): boolean {
  return (
    value.kind === 'scalar' &&
    !value.quoted &&
    (value.text === '' || value.text === '~' || /^(null|Null|NULL)$/.test(value.text))
  );
}
