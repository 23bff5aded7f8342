/**
 * The selector module's diagnostic codes, with what each means (docs/selector.md § Error codes has
 * the cause and the fix of each). Codes are stable: never rename or reuse one; add new ones.
 */
export const SELECTOR_CODES = {
  SELECTOR_EXPECTED_KEY: 'a Kubernetes selector string has no key where one belongs',
  SELECTOR_EXPECTED_COMMA: 'something follows a complete requirement without a comma',
  SELECTOR_EXPECTED_OPERATOR: 'a key is followed by something other than an operator',
  SELECTOR_EXPECTED_VALUE: 'a symbol where a value belongs',
  SELECTOR_EXPECTED_OPEN_PAREN: "in/notin is not followed by '('",
  SELECTOR_EXPECTED_COMMA_OR_CLOSE: 'two values in a set without a comma, or a set never closed',
  SELECTOR_UNSUPPORTED_OPERATOR: 'k>n or k<n: numeric comparison has no LabelSelector form',
  SELECTOR_NUL_BYTE: 'a NUL byte in a Kubernetes selector string',
  SELECTOR_INVALID_KEY: "a selector key breaks the profile's rules",
  SELECTOR_INVALID_VALUE: "a selector value breaks the profile's rules",
  SELECTOR_RESERVED_LABEL: 'a datum/ key a matcher or Host may not use',
  SELECTOR_INVALID_LABEL_KEY: "a label set's key breaks the profile's rules",
  SELECTOR_INVALID_LABEL_VALUE: "a label set's value breaks the profile's rules",
  SELECTOR_INVALID_REQUIREMENT: 'a requirement with the wrong number of values for its operator',
  SELECTOR_INVALID_OPERATOR: 'an operator that is not In, NotIn, Exists or DoesNotExist',
  SELECTOR_INVALID_LABEL_SELECTOR: 'a malformed LabelSelector object',
  SELECTOR_EQUALITY_MISSING_EQUALS: "an equality-list item without '='",
  SELECTOR_EQUALITY_EMPTY_KEY: "an equality-list item starting with '='",
  SELECTOR_EQUALITY_CONFLICT: 'one key given twice with different values in an equality list',
  SELECTOR_INVALID_MATCH: 'a malformed Datum match block',
  SELECTOR_EMPTY_MATCH_LIST: 'warning: an empty oneOf or noneOf list',
  SELECTOR_INVALID_DOCKER_FILTER: 'Docker filter text that is not a label list',
  SELECTOR_INVALID_LABELS: 'a label set given on the command line is malformed',
  SELECTOR_STDIN_IS_TERMINAL: "'-' reads stdin, but stdin is a terminal",
  SELECTOR_INPUT_TOO_LARGE: 'stdin holds more than the size limit',
} as const;

export type SelectorCode = keyof typeof SELECTOR_CODES;

declare module '../base/codes.js' {
  interface CodeRegistry {
    selector: typeof SELECTOR_CODES;
  }
}
