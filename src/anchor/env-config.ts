/**
 * How an anchord setting is refused. Every mode reads its `ANCHORD_*` variables (network-anchor,
 * service-anchor, the rebinders, the DHCP client) and reports the first bad one the same way:
 * `ANCHOR_INVALID_CONFIG`, naming the variable, so the layout shows `env ANCHORD_X`.
 */
import { LabelwiseError } from '../base/errors.js';

/** Throws `ANCHOR_INVALID_CONFIG` for the environment variable `env`. */
export function failEnv(env: string, message: string, hint?: string): never {
  throw new LabelwiseError('ANCHOR_INVALID_CONFIG', message, { source: { env }, hint });
}
