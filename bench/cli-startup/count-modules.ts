// Preloaded with `node -r`: on exit, writes the paths of the CommonJS modules the process loaded (itself included).
import { writeFileSync } from 'node:fs';

const out = process.env.CLI_BENCH_MODULES_OUT;
if (out) {
  process.on('exit', () => writeFileSync(out, JSON.stringify(Object.keys(require.cache))));
}
