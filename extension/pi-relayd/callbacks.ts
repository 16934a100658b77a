/**
 * Callbacks pi does not protect (sockets, timers, watchers) and the log they write to.
 * pi has no uncaught-exception handler: a throw in such a callback kills the user's pi
 * (shared/specs/pi-extension-api.md §9, trap 1), so every one of them goes through `safely`.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

export type Json = Record<string, any>;
export type Log = (message: string) => void;
export type Timer = ReturnType<typeof setTimeout>;

const LOG_MAX_BYTES = 1024 * 1024;

export function describe(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}

/** Runs a callback that pi does not protect (socket, timer, watcher): it must never throw. */
export function safely(log: Log, what: string, action: () => unknown): void {
  try {
    const result = action();
    if (result && typeof (result as Promise<unknown>).then === "function") {
      (result as Promise<unknown>).then(undefined, (error) => log(`${what} failed: ${describe(error)}`));
    }
  } catch (error) {
    try {
      log(`${what} failed: ${describe(error)}`);
    } catch {
      // Nothing left to do: logging itself failed.
    }
  }
}

/** A timer that neither keeps the process alive nor lets its callback throw. */
export function later(log: Log, what: string, ms: number, action: () => unknown): Timer {
  const timer = setTimeout(() => safely(log, what, action), ms);
  timer.unref?.();
  return timer;
}

export function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `PI_RELAYD_HOME`, else `~/.pi-relayd`, as the daemon and the CLI find it. */
export function relaydHome(): string {
  const home = process.env.PI_RELAYD_HOME;
  if (home && home.length > 0) return path.resolve(home);
  return path.join(os.homedir(), ".pi-relayd");
}

/**
 * Appends to `$PI_RELAYD_HOME/logs/extension.log`, only when the daemon made its logs folder:
 * without a daemon nobody reads it. Kept to about 1 MiB (one older file beside it).
 */
export function fileLogger(): Log {
  return (message: string) => {
    try {
      const folder = path.join(relaydHome(), "logs");
      if (!fs.existsSync(folder)) return;
      const file = path.join(folder, "extension.log");
      try {
        if (fs.statSync(file).size > LOG_MAX_BYTES) fs.renameSync(file, `${file}.1`);
      } catch {
        // No log yet.
      }
      fs.appendFileSync(file, `${new Date().toISOString()} pid ${process.pid}: ${message}\n`, { mode: 0o600 });
    } catch {
      // Logging must never hurt pi.
    }
  };
}
