/**
 * Bounds on text that goes back to the user. Input echoed in a message (a selector value, a
 * label, a path) is the user's own, and can be a megabyte long: messages keep its start and its
 * end, where the explanation usually is, and say how much was cut.
 */

/** Longest message, hint, object or path a diagnostic carries, in UTF-16 units. */
export const MAX_MESSAGE = 1000;

/** Whether the unit at `i` is the second half of a surrogate pair (cutting there splits a character). */
function lowSurrogate(text: string, i: number): boolean {
  const code = text.charCodeAt(i);
  return code >= 0xdc00 && code <= 0xdfff;
}

/**
 * `text` when it is at most `max` long; otherwise its first and last parts with
 * `… [N characters cut] …` between them, at most `max` long in all.
 */
export function boundText(text: string, max = MAX_MESSAGE): string {
  if (text.length <= max) return text;
  const marker = (n: number): string => ` … [${n} characters cut] … `;
  const room = Math.max(0, max - marker(text.length).length);
  let head = Math.ceil((room * 2) / 3);
  let tail = text.length - (room - head);
  if (head > 0 && lowSurrogate(text, head)) head--;
  if (tail < text.length && lowSurrogate(text, tail)) tail++;
  return `${text.slice(0, head)}${marker(tail - head)}${text.slice(tail)}`;
}
