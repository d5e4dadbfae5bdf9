// The demo's last lines point at the console: `--serve` for its runs too, and `runbooks serve --dir` over its own
// output folder, in a command the shell reads back.
import { execFileSync } from 'node:child_process';
import { consoleLines } from '../../demo/report';

test('the demo ends with `npm run demo -- --serve`', () => {
  const line = consoleLines('/tmp/out').find((l) => l.includes('npm run demo'));
  expect(line?.trim()).toMatch(/^npm run demo -- --serve\s/);
});

test('the demo ends with `runbooks serve --dir` and its output folder, quoted for the shell when it must be', () => {
  for (const dir of ['/tmp/runbooks-demo-abc/output', "/tmp/it's a demo/output"]) {
    const command = consoleLines(dir).find((l) => l.trim().startsWith('runbooks serve'));
    expect(command).toBeDefined();
    // The shell splits the line back into the command's words, the folder one of them, whole.
    const words = execFileSync('sh', ['-c', `printf '%s\\n' ${command?.trim() ?? ''}`], { encoding: 'utf8' });
    expect(words.split('\n').filter(Boolean)).toEqual(['runbooks', 'serve', '--dir', dir]);
  }
});
