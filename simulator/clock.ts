/** Simulated time: real time plus an offset that tests advance. Everything time-based reads it. */
export class SimClock {
  constructor(private readonly state: { clockOffsetMs: number }) {}

  now(): number {
    return Date.now() + this.state.clockOffsetMs;
  }

  iso(ms = this.now()): string {
    return new Date(ms).toISOString();
  }

  advance(seconds: number): number {
    this.state.clockOffsetMs += Math.round(seconds * 1000);
    return this.now();
  }
}
