// The posture report's files: rows appended to partial files from known offsets, the HTML page written around them.
import { createReadStream } from 'node:fs';
import { open, stat, type FileHandle } from 'node:fs/promises';
import { renameDurably } from '../../runtime/atomic-file';
import { sha256Of } from '../../runtime/export-file';
import type { PostureFile } from './report';

/** Writes `text` at `position` of `path`, cutting off whatever an earlier attempt wrote past it; synced. */
export async function appendAt(path: string, position: number, text: string, create: boolean): Promise<number> {
  const file = await open(path, create ? 'w' : 'r+');
  try {
    await file.truncate(position);
    const written = await writeAt(file, position, Buffer.from(text, 'utf8'));
    await file.datasync();
    return written;
  } finally {
    await file.close();
  }
}

/** Trims a partial CSV to what the scan counted and renames it; already renamed on an earlier attempt is fine. */
export async function finish(partial: string, final: string, bytes: number): Promise<void> {
  const exists = await stat(partial).then(
    () => true,
    () => false,
  );
  if (!exists) return;
  const file = await open(partial, 'r+');
  try {
    await file.truncate(bytes);
    await file.sync();
  } finally {
    await file.close();
  }
  await renameDurably(partial, final);
}

/** Stand-ins for the rows in the rendered page: each is replaced by its fragment file's bytes as the page is written. */
export const UNPROTECTED_ROWS = '\u0000unprotected rows\u0000';
export const STALE_ROWS = '\u0000stale rows\u0000';

export async function allExist(paths: string[]): Promise<boolean> {
  const found = await Promise.all(
    paths.map((p) =>
      stat(p).then(
        () => true,
        () => false,
      ),
    ),
  );
  return found.every(Boolean);
}

/**
 * Writes the page to `path`, copying each list's rows from its fragment file rather than holding them in memory (a
 * large inventory's rows run to hundreds of megabytes); synced. An empty list leaves its stand-in out of the page.
 */
export async function writeHtml(
  path: string,
  page: string,
  fragments: { path: string; bytes: number }[],
): Promise<void> {
  const parts = page.split(new RegExp(`${UNPROTECTED_ROWS}|${STALE_ROWS}`));
  const file = await open(path, 'w');
  try {
    let position = 0;
    const write = async (buffer: Buffer) => {
      position += await writeAt(file, position, buffer);
    };
    const order = [UNPROTECTED_ROWS, STALE_ROWS].filter((stand) => page.includes(stand));
    await write(Buffer.from(parts[0] ?? '', 'utf8'));
    for (const [i, stand] of order.entries()) {
      const fragment = fragments[stand === UNPROTECTED_ROWS ? 0 : 1];
      if (fragment && fragment.bytes > 0) {
        for await (const chunk of createReadStream(fragment.path, { start: 0, end: fragment.bytes - 1 })) {
          await write(chunk as Buffer);
        }
      }
      await write(Buffer.from(parts[i + 1] ?? '', 'utf8'));
    }
    await file.datasync();
  } finally {
    await file.close();
  }
}

async function writeAt(file: FileHandle, position: number, buffer: Buffer): Promise<number> {
  let written = 0;
  while (written < buffer.length) {
    const { bytesWritten } = await file.write(buffer, written, buffer.length - written, position + written);
    written += bytesWritten;
  }
  return buffer.length;
}

export async function describe(path: string, rows: number): Promise<PostureFile> {
  return { path, rows, bytes: (await stat(path)).size, sha256: await sha256Of(path) };
}
