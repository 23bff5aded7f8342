/**
 * The diagnostic codes of the shared edges, with what each means. Each module keeps the same
 * kind of list in its own `codes.ts`; a test checks that every code has a row in the docs and is
 * exercised by at least one test.
 */
export const BASE_CODES = {
  YAML_SYNTAX: 'a file cannot be read as YAML (syntax, duplicate key, depth, aliases)',
  READ_UNREADABLE: 'a file or directory of the repository cannot be read',
  READ_NOT_A_DIRECTORY: 'the repository named is not a directory',
  READ_SYSTEM_PATH: 'the repository or file named lies in /proc, /sys or /dev',
  READ_OUTSIDE_REPOSITORY: 'a path leaves the repository',
  READ_SYMLINK_OUTSIDE: 'a symbolic link leads outside the repository; it is skipped',
  READ_BROKEN_SYMLINK: 'a symbolic link is dangling or loops; it is skipped',
  READ_SPECIAL_FILE: 'a device, FIFO or socket where a file was expected; it is skipped',
  READ_IS_A_DIRECTORY: 'a directory where a file was expected',
  READ_TOO_LARGE: 'a file is over the size limit; it is not read',
  READ_NAME_NOT_UTF8:
    'a file or folder name is not valid UTF-8; it cannot be read, and fails the build',
  OUT_REFUSED: 'the output directory is a place labelwise never writes to',
  OUT_NOT_OURS: 'the output directory holds files labelwise did not write',
  OUT_LOCKED: 'another labelwise run is writing the same output directory',
  OUT_UNWRITABLE: 'the output directory cannot be written (permissions, space, a file in the way)',
  OUT_BAD_PATH: 'a module asked to write a file outside the output directory (a bug)',
} as const;

export type BaseCode = keyof typeof BASE_CODES;

/**
 * Every module's code list, by module. Each module's `codes.ts` adds its own list here by
 * declaration merging, so `base` names the codes without importing any module, and a code that
 * no list holds is a type error wherever a diagnostic or an error is made.
 */
export interface CodeRegistry {
  base: typeof BASE_CODES;
}

/** Every listed code: the closed type of `Diagnostic.code` and `LabelwiseError.code`. */
export type Code = {
  [M in keyof CodeRegistry]: keyof CodeRegistry[M] & string;
}[keyof CodeRegistry];
