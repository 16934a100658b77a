/** This extension's version, and pi's (pi offers no API for it). */
import * as fs from "node:fs";
import * as path from "node:path";
import { isObject } from "./callbacks.ts";

export const EXTENSION_VERSION = "0.1.0";

/** The first pi that fires `session_start` after its terminal UI is up. */
export const MIN_PI_VERSION = "0.58.1";

/**
 * npm installs run `<package>/dist/cli.js`, so pi's package.json is one folder above the
 * script; the standalone build keeps a copy beside the executable. Null when neither is there.
 */
export function readPiVersion(argv: readonly string[] = process.argv, execPath: string = process.execPath): string | null {
  const candidates: string[] = [];
  const script = argv[1];
  if (script) {
    let real = script;
    try {
      real = fs.realpathSync(script); // `pi` on the PATH is usually a symlink to dist/cli.js
    } catch {
      // Keep the path as given.
    }
    candidates.push(path.join(path.dirname(real), "..", "package.json"));
  }
  candidates.push(path.join(path.dirname(execPath), "package.json"));
  for (const file of candidates) {
    const version = piVersionIn(file);
    if (version) return version;
  }
  return null;
}

function piVersionIn(file: string): string | null {
  try {
    const manifest = JSON.parse(fs.readFileSync(file, "utf8"));
    // The folder above a script can belong to anything: only pi's own manifest counts.
    const isPi = isObject(manifest.piConfig) || String(manifest.name ?? "").endsWith("pi-coding-agent");
    if (isPi && typeof manifest.version === "string") return manifest.version;
  } catch {
    // Not there, or not JSON.
  }
  return null;
}

/** Dotted versions compared by number; a pre-release suffix is ignored. Null if unparsable. */
export function isOlderVersion(version: string, minimum: string): boolean | null {
  const parts = (text: string): number[] | null => {
    const core = text.trim().replace(/^v/, "").split("-")[0];
    const numbers = core.split(".").map((part) => (/^\d+$/.test(part) ? Number(part) : NaN));
    return numbers.length > 0 && numbers.every((n) => !Number.isNaN(n)) ? numbers : null;
  };
  const have = parts(version);
  const need = parts(minimum);
  if (!have || !need) return null;
  for (let index = 0; index < Math.max(have.length, need.length); index++) {
    const left = have[index] ?? 0;
    const right = need[index] ?? 0;
    if (left !== right) return left < right;
  }
  return false;
}
