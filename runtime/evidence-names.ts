// The names evidence may carry, in a reports folder and in a pack: a name that hides (leading dot), climbs (`..`, an
// absolute path) or reads other than it is (control and bidirectional characters) is refused, so that what a reader
// sees listed is what verify checked.
import { constants } from 'node:fs';
import { lstat, open } from 'node:fs/promises';
import { join } from 'node:path';

/** Bidirectional formatting characters: they make a name display in another order than it is. */
const BIDI = /[\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
/** C0 and C1 controls, and DEL. */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** `U+202E` for a character, as a message names it. */
export const codePointOf = (char: string) =>
  `U+${(char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;

/** Why `text` cannot be part of a file name (a control or bidirectional character), or undefined. */
export function unsafeCharacter(text: string): string | undefined {
  const bidi = BIDI.exec(text)?.[0];
  if (bidi !== undefined) return `holds ${codePointOf(bidi)}, a bidirectional formatting character`;
  const control = CONTROL.exec(text)?.[0];
  if (control !== undefined) return `holds ${codePointOf(control)}, a control character`;
  return undefined;
}

/** Why `name` (one file name, no folder) is not a name evidence may have, or undefined when it is fine. */
export function fileNameProblem(name: string): string | undefined {
  if (name === '' || name === '.' || name === '..') return `the name '${name}' is not a file name`;
  if (name.includes('/') || name.includes('\\')) return `${JSON.stringify(name)} holds a path separator`;
  if (name.startsWith('.')) return `${JSON.stringify(name)} is hidden (starts with a dot)`;
  const unsafe = unsafeCharacter(name);
  return unsafe === undefined ? undefined : `${JSON.stringify(name)} ${unsafe}`;
}

/** Why `path` (a pack member, `/`-separated) is not a path a pack may hold, or undefined when it is fine. */
export function packPathProblem(path: string): string | undefined {
  if (path.startsWith('/') || /^[A-Za-z]:/.test(path)) return `${JSON.stringify(path)} is an absolute path`;
  for (const part of path.split('/')) {
    if (part === '..') return `${JSON.stringify(path)} climbs out of the pack (..)`;
    const problem = fileNameProblem(part);
    if (problem !== undefined) return `${JSON.stringify(path)}: ${problem}`;
  }
  return undefined;
}

/** What a non-regular file is, from lstat (a symlink is not followed); undefined for a regular file. */
export async function specialFileKind(dir: string, name: string): Promise<string | undefined> {
  const s = await lstat(join(dir, name));
  if (s.isFile()) return undefined;
  if (s.isSymbolicLink()) return 'a symbolic link';
  if (s.isDirectory()) return 'a directory';
  if (s.isFIFO()) return 'a named pipe';
  if (s.isSocket()) return 'a socket';
  if (s.isBlockDevice() || s.isCharacterDevice()) return 'a device';
  return 'not a regular file';
}

/** A file evidence would read is a symlink, device or other special file: it is refused, never followed. */
export class SpecialFileError extends Error {
  override name = 'SpecialFileError';
  constructor(
    readonly path: string,
    readonly what: string,
  ) {
    super(`${path} is ${what}, not a regular file: refused`);
  }
}

/**
 * The bytes of the regular file at `path`, undefined when there is none; a symlink (not followed: O_NOFOLLOW) or
 * any other special file throws SpecialFileError. Opened non-blocking, so that a named pipe cannot hang the read.
 */
export async function readRegularFile(path: string): Promise<Buffer | undefined> {
  let handle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'ELOOP' || code === 'EMLINK') throw new SpecialFileError(path, 'a symbolic link');
    throw err;
  }
  try {
    const s = await handle.stat();
    if (!s.isFile()) throw new SpecialFileError(path, s.isDirectory() ? 'a directory' : 'a special file');
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}
