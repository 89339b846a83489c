/**
 * The process logger: JSON lines (pino) for machines, pretty lines when a person watches a terminal.
 * Nothing secret is ever passed to it: API key secrets are printed once to the terminal by the
 * commands that create them, never logged.
 */
import pino, { type Logger } from 'pino';
import pretty from 'pino-pretty';

export function createLogger(level: string): Logger {
  if (process.stdout.isTTY && process.env.CI !== 'true') {
    return pino({ level }, pretty({ colorize: true, translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname', sync: true }));
  }
  return pino({ level, base: { service: 'jobledger' } });
}
