import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, type WriteStream } from 'node:fs';
import { createInterface } from 'node:readline';

export interface ProcessSpec {
  name: string;
  command: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Every line of stdout and stderr is appended here. */
  logFile: string;
  /** Ready when a line of its output matches... */
  readyLine?: RegExp;
  /** ...or when this probe answers true (polled every 250 ms). */
  probe?: () => Promise<boolean>;
  readyTimeoutMs?: number;
}

const running = new Set<ChildProcess>();
// The harness may die itself; it must not leave servers and workers behind.
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/** One child process of the harness: started, killed with SIGKILL and started again with the same arguments. */
export class ManagedProcess {
  private child?: ChildProcess;
  private exited?: Promise<void>;
  private log?: WriteStream;
  /** When the current incarnation was spawned and when it became ready (epoch ms). */
  startedAt = 0;
  readyAt = 0;
  starts = 0;
  kills = 0;

  constructor(readonly spec: ProcessSpec) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get alive(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  async start(): Promise<void> {
    if (this.alive) throw new Error(`${this.spec.name} is already running`);
    const { spec } = this;
    this.log ??= createWriteStream(spec.logFile, { flags: 'a' });
    this.log.write(`--- ${new Date().toISOString()} start ${spec.command} ${spec.args.join(' ')}\n`);
    const child = spawn(spec.command, spec.args, { env: spec.env, cwd: spec.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    this.startedAt = Date.now();
    this.readyAt = 0;
    this.starts += 1;
    running.add(child);
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        running.delete(child);
        this.log?.write(`--- ${new Date().toISOString()} exit code=${code} signal=${signal}\n`);
        resolve();
      });
      child.once('error', (err) => {
        running.delete(child);
        this.log?.write(`--- spawn error ${err.message}\n`);
        resolve();
      });
    });
    let sawReadyLine = false;
    for (const stream of [child.stdout, child.stderr]) {
      createInterface({ input: stream }).on('line', (line) => {
        this.log?.write(`${line}\n`);
        if (spec.readyLine?.test(line)) sawReadyLine = true;
      });
    }
    const deadline = Date.now() + (spec.readyTimeoutMs ?? 90_000);
    for (;;) {
      if (!this.alive) throw new Error(`${spec.name} exited before it was ready (see ${spec.logFile})`);
      if (sawReadyLine || (spec.probe && (await spec.probe().catch(() => false)))) break;
      if (Date.now() > deadline) {
        await this.kill();
        throw new Error(`${spec.name} was not ready within ${spec.readyTimeoutMs ?? 90_000} ms (see ${spec.logFile})`);
      }
      await sleep(100);
    }
    this.readyAt = Date.now();
  }

  /** kill -9, and wait until it is gone. */
  async kill(): Promise<void> {
    if (!this.alive || !this.child) return;
    this.kills += 1;
    this.log?.write(`--- ${new Date().toISOString()} SIGKILL by the harness\n`);
    this.child.kill('SIGKILL');
    await this.exited;
  }

  /** A polite stop (SIGTERM), then SIGKILL when it takes too long. */
  async stop(graceMs = 10_000): Promise<void> {
    if (!this.alive || !this.child) return;
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child?.kill('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
  }

  async close(): Promise<void> {
    await this.stop(3_000);
    await new Promise<void>((resolve) => (this.log ? this.log.end(resolve) : resolve()));
    this.log = undefined;
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
