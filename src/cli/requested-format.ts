/**
 * Which machine-readable format a command line asks for. Kept apart from the document writers
 * so that deciding costs no start-up time: the writers load only when a run fails.
 */
export type DocumentFormat = 'json' | 'sarif' | 'junit';

/** The machine-readable format `args` ask for (before a `--`), or undefined for text. */
export function requestedFormat(args: readonly string[]): DocumentFormat | undefined {
  const end = args.indexOf('--');
  const head = end < 0 ? args : args.slice(0, end);
  let format: string | undefined;
  for (let i = 0; i < head.length; i++) {
    const arg = head[i] as string;
    if (arg === '--format') format = head[i + 1];
    else if (arg.startsWith('--format=')) format = arg.slice('--format='.length);
  }
  if (format === 'sarif' || format === 'junit' || format === 'json') return format;
  return head.includes('--json') ? 'json' : undefined;
}
