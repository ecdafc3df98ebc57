/**
 * Decides which process to start as the skewlsp server.
 *
 * Order (first hit wins):
 *   1. `skewlsp.path`: an executable, or an executable followed by arguments;
 *   2. `skewlsp.interpreter`, or else the interpreter selected in the Python
 *      extension: `<python> -m skewlsp`, only if that interpreter has skewlsp;
 *   3. `skewlsp` on PATH.
 * Every step that was tried and failed is recorded in `tried`, so "no server
 * found" can say exactly what was looked at. All access to the file system,
 * the environment and Python goes through `LookupHost`, so tests run on fakes.
 */
import * as path from 'path';
import { SERVER_EXECUTABLE, SERVER_MODULE } from './constants';

export type ServerSource = 'skewlsp.path' | 'skewlsp.interpreter' | 'Python extension' | 'PATH';

export interface ServerCommand {
  command: string;
  args: string[];
  source: ServerSource;
}

export interface LookupRequest {
  /** `skewlsp.path` as a command line (executable then arguments); empty when unset. */
  serverCommand: string[];
  /** `skewlsp.interpreter` when set: the interpreter, then arguments for it (before `-m skewlsp`). */
  interpreter?: string[];
  /** Asks the Python extension for its selected interpreter; only called when `interpreter` is unset. */
  pythonExtensionInterpreter?: () => Promise<string | undefined>;
  /** `skewlsp.args`, appended to the command found. */
  extraArgs: string[];
}

export interface LookupHost {
  platform: NodeJS.Platform;
  /** Environment variables; PATH (Path on Windows) and PATHEXT are read. */
  env: Record<string, string | undefined>;
  homeDir: string;
  /** First workspace folder, for `${workspaceFolder}` and relative paths. */
  workspaceFolder?: string;
  /** True when `file` exists, is a file, and may be executed. */
  isExecutableFile(file: string): Promise<boolean>;
  /**
   * The module to pass to `python -m` for the server (normally `skewlsp`), or
   * undefined when the interpreter cannot run the server.
   */
  findServerModule(python: string, pythonArgs?: readonly string[]): Promise<string | undefined>;
}

export interface LookupResult {
  server?: ServerCommand;
  /** One line per candidate that was looked at and rejected, in order. */
  tried: string[];
}

export async function findServer(request: LookupRequest, host: LookupHost): Promise<LookupResult> {
  const tried: string[] = [];
  const withExtraArgs = (command: string, args: string[], source: ServerSource): LookupResult => ({
    server: { command, args: [...args, ...request.extraArgs], source },
    tried,
  });

  if (request.serverCommand.length > 0) {
    const [configured, ...configuredArgs] = request.serverCommand;
    const executable = await resolveExecutable(configured, host);
    if (executable) return withExtraArgs(executable, configuredArgs, 'skewlsp.path');
    tried.push(`skewlsp.path: ${configured} was not found or is not executable`);
  }

  // `skewlsp.interpreter` is the interpreter then its own arguments; the Python extension's is one path.
  const interpreterSet = request.interpreter !== undefined && request.interpreter.length > 0;
  const interpreterSource: ServerSource = interpreterSet ? 'skewlsp.interpreter' : 'Python extension';
  const interpreter = interpreterSet ? request.interpreter?.[0] : await askPythonExtension(request, tried);
  const pythonArgs = interpreterSet ? (request.interpreter ?? []).slice(1) : [];
  if (interpreter) {
    const python = await resolveExecutable(interpreter, host);
    if (!python) {
      tried.push(`${interpreterSource}: interpreter ${interpreter} was not found or is not executable`);
    } else {
      const module = await host.findServerModule(python, pythonArgs);
      if (module) return withExtraArgs(python, [...pythonArgs, '-m', module], interpreterSource);
      tried.push(
        `${interpreterSource}: ${python} cannot import ${SERVER_MODULE} (install it there from a skewlsp checkout or wheel)`,
      );
    }
  } else if (!interpreterSet && request.pythonExtensionInterpreter) {
    tried.push('Python extension: no interpreter selected');
  }

  const onPath = await findOnPath(SERVER_EXECUTABLE, host);
  if (onPath) return withExtraArgs(onPath, [], 'PATH');
  tried.push(`PATH: no ${SERVER_EXECUTABLE} executable on PATH`);
  return { tried };
}

async function askPythonExtension(request: LookupRequest, tried: string[]): Promise<string | undefined> {
  if (!request.pythonExtensionInterpreter) return undefined;
  try {
    return await request.pythonExtensionInterpreter();
  } catch (error) {
    tried.push(`Python extension: could not ask for the selected interpreter (${String(error)})`);
    return undefined;
  }
}

/**
 * Resolves a configured executable: `~` and `${workspaceFolder}` expanded, a
 * bare name (no directory part) looked up on PATH, a relative path taken from
 * the workspace folder. Returns undefined when nothing executable is there.
 */
export async function resolveExecutable(configured: string, host: LookupHost): Promise<string | undefined> {
  const expanded = expandVariables(configured, host);
  const pathApi = pathFor(host.platform);
  const hasDirectory = expanded.includes('/') || (host.platform === 'win32' && expanded.includes('\\'));
  if (!hasDirectory) return findOnPath(expanded, host);
  const absolute = pathApi.isAbsolute(expanded)
    ? expanded
    : pathApi.resolve(host.workspaceFolder ?? host.homeDir, expanded);
  for (const candidate of withWindowsExtensions(absolute, host)) {
    if (await host.isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}

/** Searches PATH the way a shell would (with PATHEXT on Windows); returns the first executable match. */
export async function findOnPath(name: string, host: LookupHost): Promise<string | undefined> {
  const pathApi = pathFor(host.platform);
  const searchPath = host.env.PATH ?? host.env.Path ?? '';
  for (const directory of searchPath.split(pathApi.delimiter)) {
    if (directory === '') continue;
    for (const candidate of withWindowsExtensions(pathApi.join(directory, name), host)) {
      if (await host.isExecutableFile(candidate)) return candidate;
    }
  }
  return undefined;
}

/** Expands `~`, `${userHome}`, `${workspaceFolder}` and `${env:NAME}` in a configured path. */
export function expandVariables(value: string, host: Pick<LookupHost, 'env' | 'homeDir' | 'workspaceFolder'>): string {
  let expanded = value.replace(
    /\$\{(userHome|workspaceFolder|env:([^}]+))\}/g,
    (match, name: string, envName?: string) => {
      if (name === 'userHome') return host.homeDir;
      if (name === 'workspaceFolder') return host.workspaceFolder ?? match;
      return host.env[envName ?? ''] ?? '';
    },
  );
  if (expanded === '~' || expanded.startsWith('~/') || expanded.startsWith('~\\')) {
    expanded = host.homeDir + expanded.slice(1);
  }
  return expanded;
}

function withWindowsExtensions(file: string, host: LookupHost): string[] {
  if (host.platform !== 'win32' || path.win32.extname(file) !== '') return [file];
  const extensions = (host.env.PATHEXT ?? '.COM;.EXE;.BAT;.CMD').split(';').filter((ext) => ext !== '');
  // cmd.exe runs only files with one of these extensions, so a bare name is never a match.
  return extensions.map((ext) => file + ext.toLowerCase());
}

function pathFor(platform: NodeJS.Platform): path.PlatformPath {
  return platform === 'win32' ? path.win32 : path.posix;
}
