// The shipped deployment read as data: docker-compose.yml's services (environment interpolated as compose does) and
// the Dockerfile's runtime image (its folders, copies, environment), laid out under a temporary root so that the
// processes compose would start can run natively, each in the file system its container would have.
import { mkdir, rm, symlink } from 'node:fs/promises';
import { dirname, join, posix } from 'node:path';
import { parse } from 'yaml';

export interface ComposeService {
  image?: string;
  command?: string[];
  environment?: Record<string, string>;
  volumes?: string[];
  ports?: string[];
}

export interface Compose {
  services: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
}

/** compose refuses to start: a `${NAME:?message}` whose variable is unset or empty. */
export class ComposeRefusal extends Error {}

/** What compose makes of `${NAME}`, `${NAME:-default}` and `${NAME:?message}` with the shell's `variables`. */
export function interpolate(value: string, variables: Record<string, string | undefined>): string {
  return value.replace(/\$\{([A-Za-z0-9_]+)(?:(:-|:\?)([^}]*))?\}/g, (_, name: string, op?: string, arg?: string) => {
    const given = variables[name];
    if (given) return given;
    if (op === ':?') throw new ComposeRefusal(`${name}: ${arg ?? 'required'}`);
    return op === ':-' ? (arg ?? '') : '';
  });
}

export function parseCompose(text: string, variables: Record<string, string | undefined>): Compose {
  const compose = parse(text) as Compose;
  for (const service of Object.values(compose.services)) {
    if (!service.environment) continue;
    service.environment = Object.fromEntries(
      Object.entries(service.environment).map(([k, v]) => [k, interpolate(String(v), variables)]),
    );
  }
  return compose;
}

export interface Instruction {
  op: string;
  args: string;
}

export interface Stage {
  from: string;
  name: string;
  lines: Instruction[];
}

/** Dockerfile instructions by stage: continuation lines joined, comments dropped. */
export function dockerfileStages(text: string): Stage[] {
  const stages: Stage[] = [];
  const lines = text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
  for (const line of lines) {
    const [op = '', ...rest] = line.split(/\s+/);
    const args = rest.join(' ');
    if (op.toUpperCase() === 'FROM') {
      const [from = '', , name = ''] = args.split(/\s+/);
      stages.push({ from, name, lines: [] });
    } else {
      stages[stages.length - 1]?.lines.push({ op: op.toUpperCase(), args });
    }
  }
  return stages;
}

export interface RuntimeImage {
  workdir: string;
  env: Record<string, string>;
  /** Folders RUN mkdir creates. */
  folders: string[];
  /** Image path → the repository path it holds (a COPY from a build stage, whose WORKDIR is the repository root). */
  copies: { target: string; source: string }[];
  cmd: string[];
}

/** The final stage: what a container of the image starts with. */
export function runtimeImage(text: string): RuntimeImage {
  const stages = dockerfileStages(text);
  const final = stages[stages.length - 1];
  if (!final) throw new Error('the Dockerfile has no stage');
  const workdirOf = (stage: Stage | undefined) => stage?.lines.filter((l) => l.op === 'WORKDIR').at(-1)?.args ?? '/';
  const workdir = workdirOf(final);
  const env: Record<string, string> = {};
  const folders: string[] = [];
  const copies: RuntimeImage['copies'] = [];
  let cmd: string[] = [];
  for (const { op, args } of final.lines) {
    if (op === 'ENV') {
      for (const pair of args.split(/\s+/)) {
        const [name = '', ...value] = pair.split('=');
        env[name] = value.join('=');
      }
    } else if (op === 'RUN') {
      for (const command of args.split('&&')) {
        const words = command.trim().split(/\s+/);
        if (words[0] === 'mkdir') folders.push(...words.slice(1).filter((w) => !w.startsWith('-')));
      }
    } else if (op === 'COPY') {
      const words = args.split(/\s+/);
      const from = words.find((w) => w.startsWith('--from='))?.slice('--from='.length);
      const paths = words.filter((w) => !w.startsWith('--'));
      const target = posix.resolve(workdir, paths[paths.length - 1] ?? '.');
      const base = from ? workdirOf(stages.find((s) => s.name === from)) : '/';
      for (const source of paths.slice(0, -1)) {
        const relative = from ? posix.relative(base, posix.resolve(base, source)) : source;
        const into = paths.length > 2 || target.endsWith('/') || (paths[paths.length - 1] ?? '').endsWith('/');
        copies.push({ target: into ? posix.join(target, posix.basename(relative)) : target, source: relative });
      }
    } else if (op === 'CMD') {
      cmd = JSON.parse(args) as string[];
    }
  }
  return { workdir, env, folders, copies, cmd };
}

/** `name:/mount[:ro]` → the mount point (named volumes only). */
export function namedMounts(service: ComposeService, compose: Compose): { volume: string; mount: string }[] {
  return (service.volumes ?? [])
    .map((spec) => spec.split(':'))
    .filter(([source]) => source !== undefined && Object.keys(compose.volumes ?? {}).includes(source))
    .map(([volume = '', mount = '']) => ({ volume, mount }));
}

/**
 * A container's file system under `root`: exactly the folders the image creates and the copies it holds (links to
 * the repository's builds), then each named volume mounted over its path, empty (what it holds on first start).
 */
export async function layOut(
  root: string,
  image: RuntimeImage,
  repo: string,
  mounts: { mount: string; dir: string }[],
): Promise<void> {
  await mkdir(join(root, image.workdir), { recursive: true });
  for (const folder of image.folders) await mkdir(join(root, folder), { recursive: true });
  for (const copy of image.copies) {
    await mkdir(dirname(join(root, copy.target)), { recursive: true });
    await symlink(join(repo, copy.source), join(root, copy.target));
  }
  for (const { mount, dir } of mounts) {
    await rm(join(root, mount), { recursive: true, force: true });
    await mkdir(dirname(join(root, mount)), { recursive: true });
    await symlink(dir, join(root, mount));
  }
}

/** Every absolute path in `env` (or a command's arguments) moved under `root`. */
export function rooted(root: string, value: string): string {
  return value.startsWith('/') ? join(root, value) : value;
}
