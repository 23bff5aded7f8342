/**
 * `ANCHORD_POLL_INTERVAL` values: a plain integer of seconds (`30`) or a Go-style duration
 * (`2m30s`, `1h`, `1.5s`, `500ms`). Kept small on purpose: the original accepts exactly these.
 */

const UNITS: Readonly<Record<string, number>> = {
  h: 3_600_000,
  m: 60_000,
  s: 1000,
  ms: 1,
  us: 0.001,
  µs: 0.001,
  ns: 0.000001,
};
const PART = /(\d+(?:\.\d+)?|\.\d+)(ms|us|µs|ns|h|m|s)/y;

/**
 * Parses a duration into milliseconds. Returns undefined for anything malformed (including the
 * empty string, signs, and a unit-less number with a fraction). Never throws.
 */
export function parseGoDuration(text: string): number | undefined {
  const input = text.trim();
  if (/^\d+$/.test(input)) return Number(input) * 1000;
  if (input === '' || input.length > 64) return undefined;
  let total = 0;
  PART.lastIndex = 0;
  let at = 0;
  while (at < input.length) {
    PART.lastIndex = at;
    const match = PART.exec(input);
    if (match === null) return undefined;
    total += Number(match[1]) * (UNITS[match[2] as string] as number);
    at = PART.lastIndex;
  }
  return Number.isFinite(total) ? total : undefined;
}
