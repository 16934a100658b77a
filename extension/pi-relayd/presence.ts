/** Where the extension runs, and which loaded copy of it is the active one. */

/** Claimed by the one loaded copy that is active (the extension may be loaded twice). */
const ACTIVE_KEY = Symbol.for("pi-relayd.extension.active");

/** pi-relayd's own `pi --mode rpc` children load a globally installed copy too: they stay out. */
export function isPassiveProcess(argv: readonly string[], env: Record<string, string | undefined>): boolean {
  if (env.PI_RELAYD_CHILD !== undefined) return true;
  for (let index = 0; index + 1 < argv.length; index++) {
    if (argv[index] === "--mode" && argv[index + 1] === "rpc") return true;
  }
  return false;
}

/** Takes the process-wide claim; false when another loaded copy holds it. */
export function claimActive(token: object): boolean {
  const global = globalThis as any;
  if (global[ACTIVE_KEY]) return false;
  global[ACTIVE_KEY] = token;
  return true;
}

/** Gives the claim back, so the copy `/reload` loads next can take over. */
export function releaseActive(token: object): void {
  const global = globalThis as any;
  if (global[ACTIVE_KEY] === token) delete global[ACTIVE_KEY];
}
