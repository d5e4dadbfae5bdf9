// The evidence signing key is made once per deployment: replicas that start together on one volume share one key.
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ts from 'typescript';
import { loadEvidenceKeyFile } from '../../runtime/config';
import { loadOrCreateEvidenceKey, parseEvidenceKey } from '../../runtime/evidence-key';

const RUNTIME = join(__dirname, '..', '..', 'runtime');

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'evidence-key-'));
});
afterEach(() => rm(root, { recursive: true, force: true }));

/** The module under test as CommonJS in `root`, for child processes (it imports node builtins and one module). */
async function compiledModule(): Promise<string> {
  for (const name of ['evidence-key', 'key-file-permissions']) {
    const { outputText } = ts.transpileModule(await readFile(join(RUNTIME, `${name}.ts`), 'utf8'), {
      compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 },
    });
    await writeFile(join(root, `${name}.js`), outputText);
  }
  return join(root, 'evidence-key.js');
}

/** Starts `count` processes that each load-or-create the key at `keyFile` at once; their key IDs. */
function raceProcesses(module: string, keyFile: string, count: number): Promise<string[]> {
  const script = `require(${JSON.stringify(module)}).loadOrCreateEvidenceKey(process.argv[1])
    .then((k) => process.stdout.write(k.keyId), (e) => { console.error(e); process.exit(1); });`;
  return Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<string>((resolve, reject) => {
          execFile(process.execPath, ['-e', script, keyFile], (err, stdout, stderr) =>
            err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout),
          );
        }),
    ),
  );
}

test('a missing key is created in a new folder (0700), as a 0600 file, and read back the same', async () => {
  const keyFile = join(root, 'keys', 'evidence', 'signing-key.pem');
  const key = await loadOrCreateEvidenceKey(keyFile);
  expect((await stat(keyFile)).mode & 0o777).toBe(0o600);
  expect((await stat(join(root, 'keys', 'evidence'))).mode & 0o777).toBe(0o700);
  expect((await loadOrCreateEvidenceKey(keyFile)).keyId).toBe(key.keyId);
  expect(parseEvidenceKey(await readFile(keyFile, 'utf8'), keyFile).keyId).toBe(key.keyId);
});

test('an existing key is never replaced', async () => {
  const keyFile = join(root, 'signing-key.pem');
  const first = await loadOrCreateEvidenceKey(keyFile);
  const pem = await readFile(keyFile, 'utf8');
  await Promise.all(Array.from({ length: 5 }, () => loadOrCreateEvidenceKey(keyFile)));
  expect(await readFile(keyFile, 'utf8')).toBe(pem);
  expect((await loadOrCreateEvidenceKey(keyFile)).keyId).toBe(first.keyId);
});

test('concurrent calls in one process end with one key and no temporary file', async () => {
  const keyFile = join(root, 'shared', 'signing-key.pem');
  const keys = await Promise.all(Array.from({ length: 16 }, () => loadOrCreateEvidenceKey(keyFile)));
  expect(new Set(keys.map((k) => k.keyId)).size).toBe(1);
  expect(await readdir(join(root, 'shared'))).toEqual(['signing-key.pem']);
});

test('replicas starting at the same moment on one volume all end with the same key', async () => {
  const module = await compiledModule();
  for (let round = 0; round < 5; round++) {
    const keyFile = join(root, `volume-${round}`, 'evidence', 'signing-key.pem');
    const ids = await raceProcesses(module, keyFile, 6);
    const onDisk = parseEvidenceKey(await readFile(keyFile, 'utf8'), keyFile).keyId;
    expect(ids).toEqual(Array.from({ length: 6 }, () => onDisk));
    expect(await readdir(join(root, `volume-${round}`, 'evidence'))).toEqual(['signing-key.pem']);
  }
});

test('RUNBOOKS_EVIDENCE_KEY_FILE may name a key that does not exist yet', () => {
  const keyFile = join(root, 'not-yet', 'signing-key.pem');
  expect(loadEvidenceKeyFile({ RUNBOOKS_EVIDENCE_KEY_FILE: keyFile })).toBe(keyFile);
});
