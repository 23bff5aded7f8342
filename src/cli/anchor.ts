import { LabelwiseError } from '../errors.js';
import type { CliIO } from './io.js';

/** `labelwise anchor` — not built yet. */
export async function run(_args: readonly string[], _io: CliIO): Promise<number> {
  throw new LabelwiseError('CLI_NOT_IMPLEMENTED', 'labelwise anchor is not available in this version yet');
}
