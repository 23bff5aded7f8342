/**
 * Which anchord mode to run, and the log level: the two settings both modes share. Pure.
 *
 * anchord (cmd/anchord selectMode) takes the mode from the first command-line argument that is
 * not a flag, else `ANCHORD_MODE`, else `network-anchor`. Its image's ENTRYPOINT is the binary,
 * so Compose files say `command: [service-anchor]`. We recognise every mode name anchord has;
 * the ones not implemented here fail with "not supported", never "unknown mode", so an operator
 * knows the name is right and the feature is missing.
 */
import { LabelwiseError, quote } from '../base/errors.js';
import type { Notice } from './model.js';

/** The modes this implementation runs. */
export type AnchorMode =
  'network-anchor' | 'service-anchor' | 'wrap-rebinder' | 'external-rebinder' | 'doctor';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** In anchord's order, as its `unknown mode` message lists them. */
const IMPLEMENTED: readonly AnchorMode[] = [
  'network-anchor',
  'service-anchor',
  'doctor',
  'external-rebinder',
  'wrap-rebinder',
];

/** anchord's other mode names (and older spellings), with what to do instead. */
const NOT_SUPPORTED: Readonly<Record<string, string>> = {
  rebinder: 'the mode is called external-rebinder',
  'dhcp-refresh': 'dhcp-refresh is an address mode: set ANCHORD_ADDRESS_MODE=dhcp-refresh',
  dhcp: 'DHCP is an address mode: set ANCHORD_ADDRESS_MODE=dhcp-refresh',
};

/**
 * The mode from the first argument (when it is not a flag), else `ANCHORD_MODE`, else
 * `network-anchor`. Throws `ANCHOR_MODE_NOT_SUPPORTED` for an anchord mode we do not implement
 * and `ANCHOR_INVALID_CONFIG` for a name anchord does not have either.
 */
export function selectMode(
  argument: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
): AnchorMode {
  const fromArgument = argument !== undefined && !argument.startsWith('-') ? argument.trim() : '';
  const text = fromArgument || (env.ANCHORD_MODE ?? '').trim() || 'network-anchor';
  const source = fromArgument !== '' ? {} : { env: 'ANCHORD_MODE' };
  if ((IMPLEMENTED as readonly string[]).includes(text)) return text as AnchorMode;
  const instead = Object.hasOwn(NOT_SUPPORTED, text) ? NOT_SUPPORTED[text] : undefined;
  if (instead !== undefined) {
    throw new LabelwiseError(
      'ANCHOR_MODE_NOT_SUPPORTED',
      `mode ${quote(text)} is not supported: this anchor implements ${IMPLEMENTED.join(', ')}`,
      { source, hint: instead },
    );
  }
  throw new LabelwiseError(
    'ANCHOR_INVALID_CONFIG',
    `unknown mode ${quote(text)} (want ${IMPLEMENTED.slice(0, -1)
      .map((m) => quote(m))
      .join(', ')}, or ${quote(IMPLEMENTED[IMPLEMENTED.length - 1] as string)})`,
    {
      source,
      hint: `use one of ${IMPLEMENTED.join(', ')}, as the first argument or in ANCHORD_MODE`,
    },
  );
}

const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error'];

/**
 * `ANCHORD_LOG_LEVEL`: debug, info, warn or error (any case); empty is info. Anything else is
 * info too, as in anchord, plus a warning so the typo is visible. Never throws.
 */
export function parseLogLevel(value: string | undefined): {
  level: LogLevel;
  notice?: Notice;
} {
  const text = (value ?? '').trim();
  const level = text.toLowerCase();
  if (level === '') return { level: 'info' };
  if ((LOG_LEVELS as readonly string[]).includes(level)) return { level: level as LogLevel };
  return {
    level: 'info',
    notice: {
      level: 'warn',
      msg: 'unknown log level; using info',
      attrs: { value: text.length > 64 ? `${text.slice(0, 64)}…` : text, env: 'ANCHORD_LOG_LEVEL' },
    },
  };
}
