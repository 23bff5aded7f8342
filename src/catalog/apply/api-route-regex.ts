/**
 * `auth.apiRoutes` entries are regular expressions for the forward-auth proxy (oauth2-proxy's
 * `--api-route`), which compiles them with Go's `regexp` package: RE2 syntax, not JavaScript's.
 * A pattern JavaScript accepts but RE2 refuses (lookaround, backreferences) makes the proxy exit
 * at start-up, so the sidecar crash-loops and the whole service is down. Such patterns are
 * refused here, where the author can see why; RE2-only syntax (`(?P<name>…)`, inline flags such
 * as `(?i)`, `\A`, `\z`) is accepted.
 */

const UNSUPPORTED = "which RE2 (the proxy's regular expressions) does not support";

/**
 * One pass over the pattern, tracking escapes and character classes: reports the first construct
 * RE2 lacks, and otherwise returns a JavaScript rendering of the RE2-only syntax so JavaScript
 * can check the rest of the grammar.
 */
function scan(pattern: string): { problem: string } | { js: string } {
  let js = '';
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] as string;
    if (c === '\\') {
      const next = pattern[i + 1] ?? '';
      if (!inClass && /[1-9]/.test(next))
        return { problem: `uses the backreference \\${next}, ${UNSUPPORTED}` };
      if (!inClass && next === 'k' && pattern[i + 2] === '<')
        return { problem: `uses a named backreference (\\k<…>), ${UNSUPPORTED}` };
      js += !inClass && next === 'A' ? '^' : !inClass && next === 'z' ? '$' : c + next;
      i++;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      js += c;
      continue;
    }
    if (c === '[') {
      inClass = true;
      js += c;
      // A `]` right after `[` or `[^` is a member in RE2, not the end of the class.
      if (pattern[i + 1] === '^') js += pattern[++i];
      if (pattern[i + 1] === ']') {
        js += '\\]';
        i++;
      }
      continue;
    }
    if (c === '(' && pattern[i + 1] === '?') {
      const rest = pattern.slice(i + 2);
      if (rest.startsWith('=')) return { problem: `uses a lookahead (?=…), ${UNSUPPORTED}` };
      if (rest.startsWith('!'))
        return { problem: `uses a negative lookahead (?!…), ${UNSUPPORTED}` };
      if (rest.startsWith('<=')) return { problem: `uses a lookbehind (?<=…), ${UNSUPPORTED}` };
      if (rest.startsWith('<!'))
        return { problem: `uses a negative lookbehind (?<!…), ${UNSUPPORTED}` };
      if (rest.startsWith('P<')) {
        js += '(?<';
        i += 3; // past `?P<`
        continue;
      }
      // Inline flags: `(?i)` applies to the rest of the group, `(?i:…)` to its body.
      const flags = /^[imsU-]+([:)])/.exec(rest);
      if (flags !== null) {
        js += flags[1] === ':' ? '(?:' : '';
        i += 1 + flags[0].length;
        continue;
      }
    }
    js += c;
  }
  return { js };
}

/**
 * What is wrong with `pattern` as an RE2 regular expression, or undefined when nothing is.
 * Never throws; linear in the pattern's length.
 */
export function apiRouteProblem(pattern: string): string | undefined {
  const scanned = scan(pattern);
  if ('problem' in scanned) return scanned.problem;
  try {
    new RegExp(scanned.js);
    return undefined;
  } catch {
    return 'is not a valid regular expression';
  }
}
