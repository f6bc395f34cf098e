import { PassThrough } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createProgressReporter, describeProgress } from '../../../src/launch/launch-progress.js';
import { createLaunchReport } from '../../../src/launch/launch-report.js';

function collect(stream: PassThrough): () => string {
  const chunks: string[] = [];
  stream.on('data', (c: Buffer) => chunks.push(String(c)));
  return () => chunks.join('');
}

describe('launch progress', () => {
  it('tells the rate and the time left: 500 checks at 50 a minute take ten minutes', () => {
    const report = createLaunchReport('job-change', false);
    report.launched = 50;
    report.usd = 1;
    expect(describeProgress(report, 50, 500, 60_000)).toEqual({
      done: 50,
      total: 500,
      launched: 50,
      skipped: 0,
      failed: 0,
      usd: 1,
      per_minute: 50,
      eta: '9m00s',
    });
  });

  it('redraws one line on a terminal, and logs every few seconds elsewhere', () => {
    let t = 0;
    const report = createLaunchReport('reveal', false);
    const tty = new PassThrough();
    const screen = collect(tty);
    const onTty = createProgressReporter({
      stream: tty,
      interactive: true,
      logger: pino({ level: 'silent' }),
      now: () => t,
    });
    t = 1000;
    onTty.update(report, 1, 4);
    t = 1100; // within the redraw interval: skipped
    onTty.update(report, 2, 4);
    t = 1400;
    onTty.update(report, 3, 4);
    onTty.end();
    expect(screen().split('\r\x1b[2K').filter(Boolean)).toEqual([
      '1/4 rows · 0 launched · 0 skipped · 0 failed · $0.00 · 60/min · ETA 3s',
      '3/4 rows · 0 launched · 0 skipped · 0 failed · $0.00 · 128.6/min · ETA 0s',
    ]);

    const logs = new PassThrough();
    const lines = collect(logs);
    t = 0;
    const onPipe = createProgressReporter({
      stream: new PassThrough(),
      interactive: false,
      logger: pino(logs),
      now: () => t,
    });
    for (let done = 1; done <= 10; done += 1) {
      t = done * 1000;
      onPipe.update(report, done, 10);
    }
    const logged = lines()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { msg: string; done: number });
    expect(logged.map((l) => l.done)).toEqual([5, 10]);
    expect(logged.every((l) => l.msg === 'launch progress')).toBe(true);
  });
});
