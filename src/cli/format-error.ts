import type { LabelwiseError } from '../base/errors.js';

/**
 * One line for a user error: `file:line:col: CODE: message`, the location parts only when
 * known, then `hint: …` on its own line when there is an obvious fix. With the input text of a
 * single-expression command, a caret line points at the offset.
 */
export function formatError(error: LabelwiseError, input?: string): string {
  const { file, line, col, env, label, path, offset } = error.source;
  const where: string[] = [];
  if (file !== undefined) where.push([file, line, col].filter((p) => p !== undefined).join(':'));
  if (env !== undefined) where.push(env);
  if (label !== undefined) where.push(`label ${label}`);
  if (path !== undefined && file === undefined) where.push(path);
  if (offset !== undefined && file === undefined && input === undefined)
    where.push(`offset ${offset}`);
  const prefix = where.length > 0 ? `${where.join(': ')}: ` : '';
  let text = `${prefix}${error.code}: ${error.message}`;
  if (input !== undefined && offset !== undefined && !input.includes('\n')) {
    text += `\n  ${input}\n  ${' '.repeat(Math.min(offset, input.length))}^`;
  }
  if (error.hint !== undefined) text += `\nhint: ${error.hint}`;
  return text;
}
