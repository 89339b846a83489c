/**
 * A pino logger whose JSON lines are kept, parsed, for assertions on what a process logs.
 */
import { Writable } from 'node:stream';
import pino from 'pino';

/** A logger at `level` (default info) and the lines it wrote so far, each parsed. */
export function capturingLog(level: pino.Level = 'info'): { log: pino.Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { log: pino({ level }, sink), lines };
}
