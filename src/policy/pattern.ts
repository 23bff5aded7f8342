/**
 * Regular expressions in routes. Linkerd's proxy uses Rust's `regex` crate: RE2 syntax, linear
 * time, leftmost-first. `re2js` (a port of RE2) gives the same syntax and the same guarantee —
 * a route from a hostile file cannot make a decision backtrack for ever, which JavaScript's own
 * RegExp would allow (`(a+)+b`).
 */
import { RE2JS } from 're2js';

/** A compiled route pattern. */
export interface Pattern {
  readonly source: string;
  /**
   * Linkerd's test: the leftmost-first match must start at 0 and cover the whole text. So
   * `/a|/ab` does not match `/ab` (the first match is `/a`). Never throws; linear time.
   */
  spans(text: string): boolean;
}

/** Compiles RE2 syntax; returns the reason on failure. Never throws. */
export function compilePattern(source: string): Pattern | { error: string } {
  let re: RE2JS;
  try {
    re = RE2JS.compile(source);
  } catch (error) {
    return { error: (error as Error).message };
  }
  return {
    source,
    spans(text: string): boolean {
      const m = re.matcher(text);
      return m.find() && m.start() === 0 && m.group() === text;
    },
  };
}
