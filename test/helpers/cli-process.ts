/**
 * The `jobledger` command as a real child process, for fault tests that kill it, starve it of its
 * database or restart PostgreSQL under it: its output is collected, its exit awaited, and log lines
 * can be waited for.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

const CLI = path.resolve(import.meta.dirname, '../../src/main/cli.ts');

export interface CliProcess {
  child: ChildProcess;
  /** Everything written to stdout and stderr so far. */
  output(): string;
  /** Resolves with the exit code (null when ended by a signal) and the signal. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Wait until the output contains `text` (a log message or any fragment); throws on exit or timeout. */
  waitFor(text: string, timeoutMs?: number): Promise<void>;
}

/**
 * Start `jobledger <args>` with `env` over the test's environment (LOG_LEVEL info, CI set, no
 * DATABASE_URL unless `env` gives one, no ECB rate fetch unless `env` sets JOBLEDGER_FX_FETCH).
 */
export function startCli(args: string[], env: Record<string, string>): CliProcess {
  const childEnv: Record<string, string | undefined> = { ...process.env, CI: 'true', LOG_LEVEL: 'info', JOBLEDGER_FX_FETCH: 'false' };
  delete childEnv.DATABASE_URL;
  Object.assign(childEnv, env);
  const child = spawn(process.execPath, [CLI, ...args], { env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  return {
    child,
    output: () => output,
    exited,
    async waitFor(text, timeoutMs = 180_000) {
      const deadline = Date.now() + timeoutMs;
      while (!output.includes(text)) {
        if (child.exitCode !== null || child.signalCode !== null) throw new Error(`jobledger ${args.join(' ')} exited before "${text}":\n${output}`);
        if (Date.now() > deadline) throw new Error(`no "${text}" from jobledger ${args.join(' ')} within ${timeoutMs} ms:\n${output}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
  };
}

/** Run `jobledger <args>` to its end. */
export async function runCli(args: string[], env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const cli = startCli(args, env);
  const { code } = await cli.exited;
  return { code, output: cli.output() };
}

/** The JSON log lines of `output` whose `msg` is `msg`. */
export function logLines(output: string, msg: string): Array<Record<string, unknown>> {
  return output
    .split('\n')
    .filter((l) => l.startsWith('{') && l.includes(`"msg":${JSON.stringify(msg)}`))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}
