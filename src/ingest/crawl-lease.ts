/**
 * Who holds a crawl lease, and whether that holder is provably dead.
 *
 * A lease owner names its process: `<hostname>:<pid>:<random tag>:<process space>`, where the process
 * space identifies the PID namespace and boot the pid belongs to (on Linux the namespace's inode,
 * `/proc/self/ns/pid`, and `/proc/sys/kernel/random/boot_id`; `host` on systems without PID
 * namespaces; `-` when Linux does not tell, which disables the pid check). Another process may
 * judge the holder by its pid only when it runs on the same host, in the same PID namespace and the
 * same boot: then a pid that no longer exists (or is a zombie) is a holder that died without giving
 * its lease back (`kill -9`, an OOM kill, a crash), and its lease can be taken at once instead of
 * waiting for it to lapse. Any other holder (another host or container, an owner name of another
 * form) is never judged: its lease lapses when its heartbeat stops (`renewCrawlLease`).
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, readlinkSync } from 'node:fs';
import { hostname } from 'node:os';

/** The PID namespace and boot of this process: `host` without PID namespaces, `-` when unreadable. */
function processSpace(): string {
  if (process.platform !== 'linux') return 'host';
  try {
    const namespace = /\[(\d+)\]/.exec(readlinkSync('/proc/self/ns/pid'))?.[1];
    const boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim().replace(/-/g, '').slice(0, 12);
    return namespace && boot ? `${namespace}.${boot}` : '-';
  } catch {
    return '-';
  }
}

const SPACE = processSpace();

/** A lease-owner name unique to this process: host, pid, a random tag and the process space. */
export function processLeaseOwner(): string {
  // A colon cannot occur in a host name, so the four parts split unambiguously.
  return `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}:${SPACE}`;
}

/** Whether a pid on this host names a running process (a zombie has finished running). */
function processRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: it exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  if (process.platform !== 'linux') return true;
  try {
    // /proc/<pid>/stat: "pid (comm) state ..."; the comm may hold spaces and parentheses.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    // Gone between the two checks.
    return false;
  }
}

/**
 * Whether the process named by a lease owner is provably dead: same host name, PID namespace and boot
 * as this process, and its pid runs no more (or it is this very pid under another tag, i.e. an earlier
 * process that had our pid). False whenever that cannot be proved.
 */
export function leaseOwnerIsDead(owner: string, self: string = PROCESS_LEASE_OWNER): boolean {
  const parts = owner.split(':');
  if (parts.length !== 4 || owner === self) return false;
  const [host, pidText, , space] = parts as [string, string, string, string];
  if (host !== hostname() || space !== SPACE || space === '-') return false;
  const pid = Number(pidText);
  if (!/^\d+$/.test(pidText) || !Number.isSafeInteger(pid) || pid <= 0) return false;
  if (pid === process.pid) return true;
  return !processRuns(pid);
}

/** This process's lease owner name (one per process: the worker and an import in it share it). */
export const PROCESS_LEASE_OWNER = processLeaseOwner();
