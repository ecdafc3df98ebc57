import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { createNodeLookupHost, parseProbeOutput, SERVER_MODULE_PROBE } from '../src/nodeLookupHost';

const realPython = ['python3', 'python'].find((name) => spawnSync(name, ['--version']).status === 0);
const posixOnly = { skip: process.platform === 'win32' ? 'uses POSIX shell scripts as fake interpreters' : false };

describe('node lookup host', () => {
  const dir = mkdtempSync(join(tmpdir(), 'skewlsp-host-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('parses the probe output', () => {
    assert.equal(parseProbeOutput('skewlsp\n'), 'skewlsp');
    assert.equal(parseProbeOutput('warning: x\r\nskewlsp.server\r\n'), 'skewlsp.server');
    assert.equal(parseProbeOutput(''), undefined);
    assert.equal(parseProbeOutput('os'), undefined);
  });

  it('the probe is valid Python that only looks modules up', () => {
    assert.match(SERVER_MODULE_PROBE, /importlib\.util\.find_spec/);
    assert.doesNotMatch(SERVER_MODULE_PROBE, /import skewlsp/);
  });

  it('tells executable files from plain files and folders', posixOnly, async () => {
    const host = createNodeLookupHost(dir);
    const executable = join(dir, 'skewlsp');
    const plain = join(dir, 'notes.txt');
    writeFileSync(executable, '#!/bin/sh\n');
    chmodSync(executable, 0o755);
    writeFileSync(plain, 'x');
    assert.equal(await host.isExecutableFile(executable), true);
    assert.equal(await host.isExecutableFile(plain), false);
    assert.equal(await host.isExecutableFile(dir), false);
    assert.equal(await host.isExecutableFile(join(dir, 'missing')), false);
  });

  it('runs the probe with the interpreter and reads its answer', posixOnly, async () => {
    const host = createNodeLookupHost(dir);
    const withServer = join(dir, 'python-with-skewlsp');
    writeFileSync(withServer, '#!/bin/sh\n[ "$1" = "-c" ] && echo skewlsp && exit 0\nexit 2\n');
    chmodSync(withServer, 0o755);
    const without = join(dir, 'python-without');
    writeFileSync(without, '#!/bin/sh\nexit 1\n');
    chmodSync(without, 0o755);
    assert.equal(await host.findServerModule(withServer), 'skewlsp');
    assert.equal(await host.findServerModule(without), undefined);
    assert.equal(await host.findServerModule(join(dir, 'no-such-python')), undefined);
  });

  it("runs the probe with skewlsp.interpreter's own arguments first", posixOnly, async () => {
    const host = createNodeLookupHost(dir);
    const needsFlag = join(dir, 'python-needing-a-flag');
    writeFileSync(needsFlag, '#!/bin/sh\n[ "$1 $2 $3" = "-X utf8 -c" ] && echo skewlsp && exit 0\nexit 2\n');
    chmodSync(needsFlag, 0o755);
    assert.equal(await host.findServerModule(needsFlag, ['-X', 'utf8']), 'skewlsp');
    assert.equal(await host.findServerModule(needsFlag), undefined);
  });

  it(
    'the probe finds skewlsp.__main__ with a real Python',
    { skip: realPython ? false : 'no python on PATH' },
    async () => {
      const site = join(dir, 'site');
      mkdirSync(join(site, 'skewlsp'), { recursive: true });
      writeFileSync(join(site, 'skewlsp', '__init__.py'), '');
      writeFileSync(join(site, 'skewlsp', '__main__.py'), 'raise SystemExit("must not run")\n');
      const host = createNodeLookupHost(dir);
      const saved = process.env.PYTHONPATH;
      try {
        process.env.PYTHONPATH = site;
        assert.equal(await host.findServerModule(realPython as string), 'skewlsp');
        process.env.PYTHONPATH = join(dir, 'empty-site');
        // The interpreter's own site-packages may hold a real skewlsp; only a wrong answer is an error.
        assert.ok([undefined, 'skewlsp', 'skewlsp.server'].includes(await host.findServerModule(realPython as string)));
      } finally {
        if (saved === undefined) delete process.env.PYTHONPATH;
        else process.env.PYTHONPATH = saved;
      }
    },
  );
});
