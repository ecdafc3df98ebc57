import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { expandVariables, findOnPath, findServer, type LookupHost, type LookupRequest } from '../src/serverLookup';

/** A POSIX host whose file system holds exactly `executables`, and whose interpreters in `withSkewlsp` can run the server. */
function fakeHost(options: {
  executables?: string[];
  withSkewlsp?: Record<string, string>;
  path?: string;
  workspaceFolder?: string;
  platform?: NodeJS.Platform;
  env?: Record<string, string>;
}): LookupHost & { probed: string[]; probeArgs: string[][] } {
  const executables = new Set(options.executables ?? []);
  const probed: string[] = [];
  const probeArgs: string[][] = [];
  return {
    platform: options.platform ?? 'linux',
    env: { PATH: options.path ?? '/usr/local/bin:/usr/bin', ...options.env },
    homeDir: '/home/dev',
    workspaceFolder: options.workspaceFolder ?? '/work/kernels',
    probed,
    probeArgs,
    isExecutableFile: async (file) => executables.has(file),
    findServerModule: async (python, pythonArgs = []) => {
      probed.push(python);
      probeArgs.push([...pythonArgs]);
      return options.withSkewlsp?.[python];
    },
  };
}

function request(overrides: Partial<LookupRequest> = {}): LookupRequest {
  return { serverCommand: [], extraArgs: [], ...overrides };
}

describe('findServer', () => {
  it('uses skewlsp.path first, as an executable', async () => {
    const host = fakeHost({ executables: ['/opt/skewlsp/bin/skewlsp', '/usr/bin/skewlsp'] });
    const result = await findServer(
      request({ serverCommand: ['/opt/skewlsp/bin/skewlsp'], interpreter: ['/usr/bin/python3'] }),
      host,
    );
    assert.deepEqual(result.server, { command: '/opt/skewlsp/bin/skewlsp', args: [], source: 'skewlsp.path' });
    assert.deepEqual(result.tried, []);
    assert.deepEqual(host.probed, [], 'no interpreter is probed when skewlsp.path works');
  });

  it('treats an array skewlsp.path as executable plus arguments, and appends skewlsp.args', async () => {
    const host = fakeHost({ executables: ['/venv/bin/python'] });
    const result = await findServer(
      request({ serverCommand: ['/venv/bin/python', '-m', 'skewlsp'], extraArgs: ['--log-level', 'debug'] }),
      host,
    );
    assert.deepEqual(result.server, {
      command: '/venv/bin/python',
      args: ['-m', 'skewlsp', '--log-level', 'debug'],
      source: 'skewlsp.path',
    });
  });

  it('expands ~ and ${workspaceFolder} and resolves relative paths from the workspace folder', async () => {
    const host = fakeHost({ executables: ['/home/dev/.local/bin/skewlsp', '/work/kernels/.venv/bin/skewlsp'] });
    assert.equal(
      (await findServer(request({ serverCommand: ['~/.local/bin/skewlsp'] }), host)).server?.command,
      '/home/dev/.local/bin/skewlsp',
    );
    assert.equal(
      (await findServer(request({ serverCommand: ['${workspaceFolder}/.venv/bin/skewlsp'] }), host)).server?.command,
      '/work/kernels/.venv/bin/skewlsp',
    );
    assert.equal(
      (await findServer(request({ serverCommand: ['./.venv/bin/skewlsp'] }), host)).server?.command,
      '/work/kernels/.venv/bin/skewlsp',
    );
  });

  it('looks a bare skewlsp.path name up on PATH', async () => {
    const host = fakeHost({ executables: ['/usr/bin/my-skewlsp'] });
    const result = await findServer(request({ serverCommand: ['my-skewlsp'] }), host);
    assert.equal(result.server?.command, '/usr/bin/my-skewlsp');
  });

  it('falls through a missing skewlsp.path, and says so', async () => {
    const host = fakeHost({ executables: ['/usr/bin/skewlsp'] });
    const result = await findServer(request({ serverCommand: ['/nope/skewlsp'] }), host);
    assert.deepEqual(result.server, { command: '/usr/bin/skewlsp', args: [], source: 'PATH' });
    assert.deepEqual(result.tried, ['skewlsp.path: /nope/skewlsp was not found or is not executable']);
  });

  it('runs `<python> -m skewlsp` with skewlsp.interpreter when skewlsp is installed there', async () => {
    const host = fakeHost({
      executables: ['/venv/bin/python', '/usr/bin/skewlsp'],
      withSkewlsp: { '/venv/bin/python': 'skewlsp' },
    });
    let askedPythonExtension = false;
    const result = await findServer(
      request({
        interpreter: ['/venv/bin/python'],
        extraArgs: ['-v'],
        pythonExtensionInterpreter: async () => {
          askedPythonExtension = true;
          return '/other/python';
        },
      }),
      host,
    );
    assert.deepEqual(result.server, {
      command: '/venv/bin/python',
      args: ['-m', 'skewlsp', '-v'],
      source: 'skewlsp.interpreter',
    });
    assert.equal(askedPythonExtension, false, 'an explicit interpreter wins over the Python extension');
  });

  it("passes skewlsp.interpreter's own arguments to the interpreter, as ruff.interpreter's", async () => {
    const host = fakeHost({ executables: ['/venv/bin/python'], withSkewlsp: { '/venv/bin/python': 'skewlsp' } });
    const result = await findServer(request({ interpreter: ['/venv/bin/python', '-X', 'utf8'] }), host);
    assert.deepEqual(result.server, {
      command: '/venv/bin/python',
      args: ['-X', 'utf8', '-m', 'skewlsp'],
      source: 'skewlsp.interpreter',
    });
    assert.deepEqual(host.probeArgs, [['-X', 'utf8']], 'the probe runs the interpreter the same way');
  });

  it('resolves a bare interpreter name such as python3 on PATH', async () => {
    const host = fakeHost({ executables: ['/usr/bin/python3'], withSkewlsp: { '/usr/bin/python3': 'skewlsp' } });
    const result = await findServer(request({ interpreter: ['python3'] }), host);
    assert.deepEqual(result.server, {
      command: '/usr/bin/python3',
      args: ['-m', 'skewlsp'],
      source: 'skewlsp.interpreter',
    });
  });

  it('uses the module the probe reports (skewlsp.server for an install without skewlsp/__main__.py)', async () => {
    const host = fakeHost({ executables: ['/venv/bin/python'], withSkewlsp: { '/venv/bin/python': 'skewlsp.server' } });
    const result = await findServer(request({ interpreter: ['/venv/bin/python'] }), host);
    assert.deepEqual(result.server?.args, ['-m', 'skewlsp.server']);
  });

  it('uses the Python extension interpreter when skewlsp.interpreter is unset', async () => {
    const host = fakeHost({
      executables: ['/conda/envs/k/bin/python'],
      withSkewlsp: { '/conda/envs/k/bin/python': 'skewlsp' },
    });
    const result = await findServer(
      request({ pythonExtensionInterpreter: async () => '/conda/envs/k/bin/python' }),
      host,
    );
    assert.deepEqual(result.server, {
      command: '/conda/envs/k/bin/python',
      args: ['-m', 'skewlsp'],
      source: 'Python extension',
    });
  });

  it('skips an interpreter without skewlsp and finds skewlsp on PATH, recording why', async () => {
    const host = fakeHost({
      executables: ['/usr/bin/python3', '/home/dev/.local/bin/skewlsp'],
      path: '/usr/bin:/home/dev/.local/bin',
    });
    const result = await findServer(request({ pythonExtensionInterpreter: async () => '/usr/bin/python3' }), host);
    assert.deepEqual(result.server, { command: '/home/dev/.local/bin/skewlsp', args: [], source: 'PATH' });
    assert.deepEqual(result.tried, [
      'Python extension: /usr/bin/python3 cannot import skewlsp (install it there from a skewlsp checkout or wheel)',
    ]);
  });

  it('survives a Python extension that throws', async () => {
    const host = fakeHost({ executables: ['/usr/bin/skewlsp'] });
    const result = await findServer(
      request({
        pythonExtensionInterpreter: async () => {
          throw new Error('API not ready');
        },
      }),
      host,
    );
    assert.equal(result.server?.source, 'PATH');
    assert.match(result.tried[0], /Python extension: could not ask .*API not ready/);
  });

  it('finds nothing and lists every place it looked', async () => {
    const host = fakeHost({ executables: [] });
    const result = await findServer(request({ serverCommand: ['/x/skewlsp'], interpreter: ['/missing/python'] }), host);
    assert.equal(result.server, undefined);
    assert.deepEqual(result.tried, [
      'skewlsp.path: /x/skewlsp was not found or is not executable',
      'skewlsp.interpreter: interpreter /missing/python was not found or is not executable',
      'PATH: no skewlsp executable on PATH',
    ]);
  });

  it('notes a Python extension without a selected interpreter', async () => {
    const result = await findServer(request({ pythonExtensionInterpreter: async () => undefined }), fakeHost({}));
    assert.deepEqual(result.tried, [
      'Python extension: no interpreter selected',
      'PATH: no skewlsp executable on PATH',
    ]);
  });
});

describe('findOnPath', () => {
  it('returns the first PATH entry holding an executable, skipping empty entries', async () => {
    const host = fakeHost({ executables: ['/b/skewlsp', '/c/skewlsp'], path: '::/a:/b:/c' });
    assert.equal(await findOnPath('skewlsp', host), '/b/skewlsp');
  });

  it('uses ; and PATHEXT on Windows', async () => {
    const host = fakeHost({
      platform: 'win32',
      path: 'C:\\Python312;C:\\Users\\dev\\venv\\Scripts',
      env: { PATHEXT: '.COM;.EXE;.BAT' },
      executables: ['C:\\Users\\dev\\venv\\Scripts\\skewlsp.exe'],
    });
    assert.equal(await findOnPath('skewlsp', host), 'C:\\Users\\dev\\venv\\Scripts\\skewlsp.exe');
  });

  it('reads Path when PATH is absent (Windows spelling)', async () => {
    const host = fakeHost({ platform: 'win32', executables: ['C:\\tools\\skewlsp.exe'] });
    host.env = { Path: 'C:\\tools' };
    assert.equal(await findOnPath('skewlsp', host), 'C:\\tools\\skewlsp.exe');
  });
});

describe('expandVariables', () => {
  const host = { env: { VENV: '/venvs/k' }, homeDir: '/home/dev', workspaceFolder: '/ws' };
  it('expands the supported variables', () => {
    assert.equal(expandVariables('${userHome}/bin/skewlsp', host), '/home/dev/bin/skewlsp');
    assert.equal(expandVariables('${env:VENV}/bin/python', host), '/venvs/k/bin/python');
    assert.equal(expandVariables('${workspaceFolder}/x', host), '/ws/x');
    assert.equal(expandVariables('~', host), '/home/dev');
  });
  it('leaves ${workspaceFolder} alone when there is no workspace, and ~user untouched', () => {
    assert.equal(
      expandVariables('${workspaceFolder}/x', { ...host, workspaceFolder: undefined }),
      '${workspaceFolder}/x',
    );
    assert.equal(expandVariables('~other/bin', host), '~other/bin');
  });
});
