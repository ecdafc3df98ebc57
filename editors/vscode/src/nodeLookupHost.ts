/**
 * The real `LookupHost`: the local file system, this process's environment,
 * and a short-lived Python process that checks whether skewlsp is importable.
 * Kept apart from `serverLookup.ts` so the lookup logic is tested on fakes.
 */
import { execFile } from 'child_process';
import { constants as fsConstants, promises as fs } from 'fs';
import * as os from 'os';
import type { LookupHost } from './serverLookup';

/** How long the "is skewlsp installed in this interpreter?" probe may take before it counts as "no". */
const PROBE_TIMEOUT_MS = 15_000;

/**
 * Prints the first module that `python -m` can run as the server. The
 * package's `__main__` is preferred; `skewlsp.server` is accepted as well so
 * an install that only ships the server's own `__main__` still works.
 * `find_spec` imports the parent packages but never the user's code.
 */
export const SERVER_MODULE_PROBE = [
  'import importlib.util, sys',
  'for name in ("skewlsp", "skewlsp.server"):',
  '    try:',
  '        found = importlib.util.find_spec(name + ".__main__") is not None',
  '    except Exception:',
  '        found = False',
  '    if found:',
  '        print(name)',
  '        sys.exit(0)',
  'sys.exit(1)',
].join('\n');

/** Parses the probe's stdout: the module name, or undefined if it printed nothing usable. */
export function parseProbeOutput(stdout: string): string | undefined {
  const name = stdout.trim().split(/\r?\n/).pop()?.trim();
  return name === 'skewlsp' || name === 'skewlsp.server' ? name : undefined;
}

export function createNodeLookupHost(workspaceFolder: string | undefined): LookupHost {
  return {
    platform: process.platform,
    env: process.env,
    homeDir: os.homedir(),
    workspaceFolder,
    isExecutableFile,
    findServerModule,
  };
}

async function isExecutableFile(file: string): Promise<boolean> {
  try {
    const stat = await fs.stat(file);
    if (!stat.isFile()) return false;
    if (process.platform === 'win32') return true;
    await fs.access(file, fsConstants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function findServerModule(python: string, pythonArgs: readonly string[] = []): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(
      python,
      [...pythonArgs, '-c', SERVER_MODULE_PROBE],
      { timeout: PROBE_TIMEOUT_MS, windowsHide: true },
      (error, stdout) => resolve(error ? undefined : parseProbeOutput(String(stdout))),
    );
  });
}
