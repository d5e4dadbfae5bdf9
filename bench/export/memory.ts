import { readFileSync, writeFileSync } from 'node:fs';

/** VmRSS and VmHWM of a process, in MiB, from /proc (Linux). */
export function memoryOf(pid: number): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rss: kib('VmRSS') / 1024, hwm: kib('VmHWM') / 1024 };
}

/**
 * Samples a process's resident memory while something runs: the peak is the larger of the sampled VmRSS and VmHWM,
 * whose high-water mark is reset first where the kernel allows it (`clear_refs` 5).
 */
export class PeakSampler {
  readonly idle: number;
  private peak: number;
  private readonly timer: NodeJS.Timeout;
  private readonly hwmReset: boolean;

  /** `everyMs`: how often VmRSS is sampled (the high-water mark, where it was reset, catches what falls between). */
  constructor(
    private readonly pid: number,
    everyMs = 20,
  ) {
    this.hwmReset = resetHighWater(pid);
    this.idle = memoryOf(pid).rss;
    this.peak = this.idle;
    this.timer = setInterval(() => this.sample(), everyMs);
  }

  private sample(): void {
    try {
      this.peak = Math.max(this.peak, memoryOf(this.pid).rss);
    } catch {
      // The process is gone: keep what was seen.
    }
  }

  stop(): { idle: number; peak: number } {
    clearInterval(this.timer);
    this.sample();
    if (this.hwmReset) this.peak = Math.max(this.peak, memoryOf(this.pid).hwm);
    return { idle: this.idle, peak: this.peak };
  }
}

function resetHighWater(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}
