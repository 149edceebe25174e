/**
 * Whether another process is still there: the build lock's holder (stages/write/build-folders.ts),
 * and the writer of a file left half-written beside the cache's (incremental/build-cache.ts).
 */
import { readFileSync } from "node:fs";

/**
 * Whether a process is running: it exists (`kill(pid, 0)`: EPERM is another user's process),
 * it is not a zombie (state Z: exited, never reaped, as a killed build's is until its parent
 * waits for it, and for ever where PID 1 does not reap), and, when `start` is given and the
 * system says (Linux's /proc), it started when the holder did (the number is not another process's now).
 */
export function isRunning(pid: number, start?: string): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  const stat = procStat(pid);
  if (!stat) return true;
  if (stat.state === "Z" || stat.state === "X" || stat.state === "x") return false;
  return start === undefined || start === "0" || start === stat.start;
}

/** When a process started (clock ticks since boot), where the system says. */
export function startOf(pid: number): string | undefined {
  return procStat(pid)?.start;
}

/** A process's state and start time from /proc/<pid>/stat (Linux); undefined elsewhere or when it is gone. */
function procStat(pid: number): { state: string; start: string } | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  // "pid (name) state ppid …": the name may hold spaces and parentheses, so the fields start after the last ")".
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  const state = fields[0];
  const start = fields[19];
  return state && start ? { state, start } : undefined;
}
