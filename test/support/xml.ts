/**
 * An XML 1.0 well-formedness check for the documents labelwise writes (JUnit): every character
 * is one the `Char` production allows, every tag is closed in order, names are names, and text
 * and attribute values hold `<` and `&` only as references. Returns the first problem, or
 * undefined. It checks what a strict parser rejects; it builds no tree.
 */
const NAME = /^[A-Za-z_:][A-Za-z0-9_:.-]*$/;
const REFERENCE = /^&(lt|gt|amp|quot|apos|#[0-9]+|#x[0-9a-fA-F]+);/;
const NOT_CHAR = /[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/u;

function checkText(text: string, where: number): string | undefined {
  for (let i = text.indexOf('&'); i >= 0; i = text.indexOf('&', i + 1))
    if (!REFERENCE.test(text.slice(i))) return `bare & at ${where + i}`;
  if (text.includes('<')) return `bare < at ${where + text.indexOf('<')}`;
  return undefined;
}

function checkTag(body: string, at: number, stack: string[]): string | undefined {
  if (body.startsWith('?')) return body.endsWith('?') ? undefined : `bad declaration at ${at}`;
  const closing = body.startsWith('/');
  const empty = body.endsWith('/');
  const inner = body.slice(closing ? 1 : 0, empty ? -1 : undefined).trim();
  const name = inner.split(/\s/)[0] ?? '';
  if (!NAME.test(name)) return `bad tag name ${JSON.stringify(name)} at ${at}`;
  if (closing) return stack.pop() === name ? undefined : `unbalanced </${name}> at ${at}`;
  const attributes = inner.slice(name.length);
  const attribute = /\s+([^\s=]+)\s*=\s*"([^"]*)"/gy;
  let consumed = 0;
  for (let m = attribute.exec(attributes); m !== null; m = attribute.exec(attributes)) {
    if (!NAME.test(m[1] as string)) return `bad attribute name at ${at}`;
    const problem = checkText(m[2] as string, at);
    if (problem !== undefined) return problem;
    consumed = attribute.lastIndex;
  }
  if (attributes.slice(consumed).trim() !== '') return `bad attributes at ${at}`;
  if (!empty) stack.push(name);
  return undefined;
}

export function xmlProblem(text: string): string | undefined {
  const bad = NOT_CHAR.exec(text);
  if (bad !== null)
    return `character U+${(bad[0].codePointAt(0) as number).toString(16)} at ${bad.index}`;
  const stack: string[] = [];
  let at = 0;
  let roots = 0;
  while (at < text.length) {
    const open = text.indexOf('<', at);
    const problem = checkText(text.slice(at, open < 0 ? text.length : open), at);
    if (problem !== undefined) return problem;
    if (open < 0) break;
    const close = text.indexOf('>', open);
    if (close < 0) return `unclosed tag at ${open}`;
    const body = text.slice(open + 1, close);
    if (stack.length === 0 && !body.startsWith('?') && !body.startsWith('/')) roots++;
    const tagProblem = checkTag(body, open, stack);
    if (tagProblem !== undefined) return tagProblem;
    at = close + 1;
  }
  if (stack.length > 0) return `unclosed <${stack.at(-1)}>`;
  return roots === 1 ? undefined : `${roots} root elements`;
}
