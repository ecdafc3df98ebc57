/**
 * Asks the Python extension (ms-python.python) which interpreter the user selected.
 *
 * The extension is optional and its API has changed over the years, so every
 * access is guarded: the newer `environments` API is tried first, then the
 * older `settings.getExecutionDetails`. Any failure means "no answer", never
 * an exception, so server lookup simply moves on to PATH.
 */
import * as vscode from 'vscode';

export const PYTHON_EXTENSION_ID = 'ms-python.python';

type Resource = vscode.Uri | undefined;

/** Reads the selected interpreter from the Python extension's exported API object (untyped: it is another extension's). */
export async function interpreterFromPythonApi(api: unknown, resource: Resource): Promise<string | undefined> {
  const exports = api as PythonExtensionApiShape | undefined;
  const environments = exports?.environments;
  if (environments && typeof environments.getActiveEnvironmentPath === 'function') {
    const active = environments.getActiveEnvironmentPath(resource);
    if (typeof environments.resolveEnvironment === 'function' && active) {
      // `active.path` may be an environment folder (conda); the resolved environment names its executable.
      const resolved = await environments.resolveEnvironment(active);
      const executable = resolved?.executable?.uri?.fsPath;
      if (typeof executable === 'string' && executable !== '') return executable;
    }
    if (typeof active?.path === 'string' && active.path !== '') return active.path;
  }
  const details = exports?.settings?.getExecutionDetails?.(resource);
  const first = details?.execCommand?.[0];
  return typeof first === 'string' && first !== '' ? first : undefined;
}

/** The interpreter selected in the Python extension, or undefined when it is absent, inactive or says nothing. */
export async function selectedPythonInterpreter(resource: Resource): Promise<string | undefined> {
  const extension = vscode.extensions.getExtension(PYTHON_EXTENSION_ID);
  if (!extension) return undefined;
  try {
    const api = extension.isActive ? extension.exports : await extension.activate();
    return await interpreterFromPythonApi(api, resource);
  } catch {
    return undefined;
  }
}

/**
 * Subscribes to interpreter changes in the Python extension, if it offers the
 * event; returns undefined when it does not (or is not installed).
 */
export async function onPythonInterpreterChanged(listener: () => void): Promise<vscode.Disposable | undefined> {
  const extension = vscode.extensions.getExtension(PYTHON_EXTENSION_ID);
  if (!extension) return undefined;
  try {
    const api = (extension.isActive ? extension.exports : await extension.activate()) as PythonExtensionApiShape;
    const event = api?.environments?.onDidChangeActiveEnvironmentPath ?? api?.settings?.onDidChangeExecutionDetails;
    return typeof event === 'function' ? event(() => listener()) : undefined;
  } catch {
    return undefined;
  }
}

/** The parts of the Python extension's API that are used; everything optional because nothing is guaranteed. */
interface PythonExtensionApiShape {
  environments?: {
    getActiveEnvironmentPath?: (resource?: Resource) => { id?: string; path?: string } | undefined;
    resolveEnvironment?: (environment: {
      id?: string;
      path?: string;
    }) => Promise<{ executable?: { uri?: { fsPath?: string } } } | undefined>;
    onDidChangeActiveEnvironmentPath?: (listener: () => void) => vscode.Disposable;
  };
  settings?: {
    getExecutionDetails?: (resource?: Resource) => { execCommand?: string[] } | undefined;
    onDidChangeExecutionDetails?: (listener: () => void) => vscode.Disposable;
  };
}
