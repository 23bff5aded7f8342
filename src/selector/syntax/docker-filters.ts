/**
 * Docker Engine label filters for `GET /containers/json` (docs/selector.md, "Docker label filters").
 *
 * Docker ANDs repeated `label` terms and has no negation on the list endpoint, so only `Exists`
 * (`label=k`) and single-value `In` (`label=k=v`) go to the server. Everything else — `NotIn`,
 * `DoesNotExist`, multi-value `In`, and keys containing `=` (Docker splits the term at its first
 * `=`, so such a key would be misread) — stays in the residual selector the caller must apply.
 * The server part is therefore never narrower than the selector: no matching container is
 * dropped.
 */
import { LabelwiseError, quote } from '../../base/errors.js';
import { NOTHING, requirement, selectorOf } from '../model.js';
import type { Requirement, Selector } from '../model.js';

export interface DockerFilters {
  /** Ready for the `filters` query parameter (JSON-encode it). */
  readonly server: { label: string[] };
  /** What the server could not check; apply it to every listed container. */
  readonly residual: Selector;
}

/** Splits a selector into Docker server filters and a client-side residual. */
export function toDockerFilters(selector: Selector): DockerFilters {
  if (selector.kind === 'nothing') return { server: { label: [] }, residual: NOTHING };
  const label: string[] = [];
  const residual: Requirement[] = [];
  for (const req of selector.requirements) {
    const serverSafe = !req.key.includes('=');
    if (serverSafe && req.operator === 'Exists') label.push(req.key);
    else if (serverSafe && req.operator === 'In' && req.values.length === 1)
      label.push(`${req.key}=${req.values[0]}`);
    else residual.push(req);
  }
  return { server: { label }, residual: selectorOf(residual) };
}

/**
 * Reads Docker `label` filter terms back into a selector (`k` → Exists, `k=v` → In), splitting at
 * the first `=` as Docker does. Used by `--syntax docker` on the command line.
 */
export function fromDockerFilters(terms: readonly string[]): Selector {
  return selectorOf(
    terms.map((term) => {
      const at = term.indexOf('=');
      const key = at < 0 ? term : term.slice(0, at);
      if (key === '') {
        throw new LabelwiseError(
          'SELECTOR_INVALID_DOCKER_FILTER',
          `label filter ${quote(term)} has an empty key`,
        );
      }
      return at < 0 ? requirement(key, 'Exists') : requirement(key, 'In', [term.slice(at + 1)]);
    }),
  );
}

/**
 * Parses Docker filter text as given on the command line: either a filters JSON object
 * (`{"label":["a=b","c"]}`) or comma-separated terms, each optionally prefixed `label=`.
 */
export function parseDockerFilterText(text: string): Selector {
  const trimmed = text.trim();
  if (trimmed.startsWith('{')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(trimmed);
    } catch (error) {
      throw new LabelwiseError(
        'SELECTOR_INVALID_DOCKER_FILTER',
        `filters are not valid JSON: ${(error as Error).message}`,
      );
    }
    const labels = (parsed as { label?: unknown } | null)?.label;
    const keys = parsed !== null && typeof parsed === 'object' ? Object.keys(parsed) : [];
    if (
      keys.some((k) => k !== 'label') ||
      !Array.isArray(labels) ||
      labels.some((t) => typeof t !== 'string')
    ) {
      throw new LabelwiseError(
        'SELECTOR_INVALID_DOCKER_FILTER',
        'filters must be an object with one "label" list of strings',
      );
    }
    return fromDockerFilters(labels as string[]);
  }
  const terms =
    trimmed === ''
      ? []
      : trimmed
          .split(',')
          .map((t) => t.trim())
          .filter((t) => t !== '');
  return fromDockerFilters(
    terms.map((t) => (t.startsWith('label=') ? t.slice('label='.length) : t)),
  );
}
