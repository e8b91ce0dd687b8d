// The Node.js version the project promises (package.json "engines") is one every installed
// dependency supports: the lowest version the promise allows satisfies each package's own
// "engines.node", production and development dependencies alike.
import { readFileSync } from 'node:fs';
import semver from 'semver';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

const root = new URL('../', import.meta.url);
const manifest = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { engines: { node: string } };
const lock = JSON.parse(readFileSync(new URL('package-lock.json', root), 'utf8')) as {
  packages: Record<string, { engines?: { node?: string } | string[]; optional?: boolean }>;
};

test('every locked dependency supports the lowest Node.js version the project promises', () => {
  const lowest = semver.minVersion(manifest.engines.node);
  assert.ok(lowest, `engines.node is a valid range: ${manifest.engines.node}`);
  const refused = Object.entries(lock.packages)
    .filter(([where]) => where.startsWith('node_modules/'))
    .flatMap(([where, pkg]) => {
      const wanted = !Array.isArray(pkg.engines) ? pkg.engines?.node : undefined;
      if (!wanted || !semver.validRange(wanted)) return [];
      return semver.satisfies(lowest!, wanted)
        ? []
        : [`${where.replace(/^.*node_modules\//, '')} needs Node.js ${wanted}`];
    });
  assert.equal(refused, [], `the project promises Node.js ${manifest.engines.node}`);
});

test('the Node.js running the tests is one the project promises', () => {
  assert.ok(
    semver.satisfies(process.version, manifest.engines.node),
    `${process.version} within ${manifest.engines.node}`,
  );
});

test.run();
