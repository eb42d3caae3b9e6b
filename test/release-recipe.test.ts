// The release as text. The Dockerfile and compose.yaml run the steps test/release.test.ts runs
// (scripts/release.sh) and name only what the bot reads: no image can be built where the tests run,
// so these checks keep the recipe and the tested steps from drifting apart. And the version is one:
// package.json, its lock and the changelog's latest release.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FILE_SECRETS } from '../src/config.js';

const read = (path: string) => readFileSync(new URL(`../${path}`, import.meta.url), 'utf8');
const dockerfile = read('Dockerfile');
const compose = read('compose.yaml');
const release = read('scripts/release.sh');

/** The allocator settings and node flags of a command line that runs `node … <script>`. */
function launch(command: string): { env: string[]; flags: string[] } {
  const env = [...command.matchAll(/\b((?:MI)?MALLOC_\w+=\S+)/g)].map((m) => m[1] ?? '').sort();
  const flags = (/\bnode((?:\s+--[\w-]+(?:=\S+)?)*)\s+\S+\.m?js\b/.exec(command)?.[1] ?? '')
    .trim()
    .split(/\s+/)
    .filter(Boolean)
    .sort();
  return { env, flags };
}

describe('the container recipe', () => {
  it('starts the bot with the node flags and allocator settings of npm start', () => {
    const npmStart = (JSON.parse(read('package.json')) as { scripts: { start: string } }).scripts.start;
    const startStep = /^start\(\) \{([\s\S]*?)^\}/m.exec(release)?.[1] ?? '';
    expect(launch(npmStart).env.length).toBeGreaterThan(0);
    expect(launch(startStep)).toEqual(launch(npmStart));
  });

  it('builds and runs on a pinned Node 24 LTS through the release steps, as uid 1000, keeping no volume of its own', () => {
    expect(dockerfile).toMatch(/^ARG NODE_IMAGE=node:24\.\d+\.\d+-bookworm-slim$/m);
    expect(dockerfile.match(/^FROM \$\{NODE_IMAGE\}/gm)).toHaveLength(2);
    // The dependencies are a layer of their own, built from the manifest and lock alone.
    expect(dockerfile).toMatch(
      /^COPY [^\n]*package\.json package-lock\.json \.\/\n(?:COPY [^\n]*scripts\/release\.sh scripts\/\n)RUN sh scripts\/release\.sh deps\nCOPY [^\n]* \. \.\n(?:[#A][^\n]*\n)*RUN [^\n]*sh scripts\/release\.sh build /m,
    );
    expect(dockerfile).toMatch(/^CMD \["sh", "\/app\/scripts\/release\.sh", "start"\]$/m);
    expect(dockerfile).toMatch(/^\s+CMD \["sh", "\/app\/scripts\/release\.sh", "check"\]$/m);
    expect(release).toMatch(/\/livez/);
    const runStage = dockerfile.slice(dockerfile.lastIndexOf('FROM '));
    expect(runStage).toMatch(/^USER 1000:1000$/m);
    // An anonymous volume per container would lose the signing key on every new container.
    expect(dockerfile).not.toMatch(/^VOLUME /m);
    expect(runStage).toMatch(/rm -rf \/usr\/local\/lib\/node_modules /);
    for (const label of ['version', 'revision', 'source']) {
      expect(runStage).toMatch(new RegExp(`org\\.opencontainers\\.image\\.${label}="\\$\\{`));
    }
    expect(runStage).toMatch(/^ENV [^\n]*ADMIN_HOST=0\.0\.0\.0/m);
    // The admin listener on the port the configuration documents, exposed and published as that.
    expect(runStage).toMatch(/^ENV [^\n]*ADMIN_PORT=9091(\s|$)/m);
    expect(runStage).toMatch(/^EXPOSE 3000 9091$/m);
    expect(compose).toMatch(/"127\.0\.0\.1:9091:9091"/);
  });

  it("keeps the bot's state in a named volume, gives it the signing key, and waits for its drain", () => {
    expect(compose).toMatch(/^\s+- bot-data:\/app\/data$/m);
    expect(compose).toMatch(/^volumes:\n(?:\s+[\w-]+:\n)*\s+bot-data:$/m);
    expect(compose).toMatch(/CNGN_AUDIT_SIGNING_KEY_FILE: \/run\/secrets\/audit_signing_key/);
    expect(compose).toMatch(/^\s+stop_grace_period: 30s$/m);
  });

  it('starts the bot once PostgreSQL is healthy, and sets only secrets the bot reads from files', () => {
    expect(compose).toMatch(/depends_on:\s+postgres:\s+condition: service_healthy/);
    // The store's URL holds PostgreSQL's password: a file, like every secret.
    expect(compose).toMatch(/STORE_URL_FILE: \/run\/secrets\/store_url/);
    expect(compose).not.toMatch(/^\s+STORE_URL:/m);
    expect(compose).not.toMatch(/POSTGRES_PASSWORD:/);
    const named = [...compose.matchAll(/\b([A-Z_]+)_FILE:/g)].map((m) => m[1]);
    expect(named.length).toBeGreaterThan(0);
    expect(
      named.filter((name) => name !== 'POSTGRES_PASSWORD' && !FILE_SECRETS.includes(name as never)),
    ).toEqual([]);
  });
});

describe('the version', () => {
  it("is the changelog's latest release, in package.json and its lock", () => {
    const { version } = JSON.parse(read('package.json')) as { version: string };
    const lock = JSON.parse(read('package-lock.json')) as {
      version: string;
      packages: { '': { version: string } };
    };
    expect([lock.version, lock.packages[''].version]).toEqual([version, version]);
    const changelog = read('CHANGELOG.md');
    expect(changelog).toMatch(/^## \[Unreleased\]$/m);
    expect(/^## \[(\d+\.\d+\.\d+)\] - \d{4}-\d{2}-\d{2}$/m.exec(changelog)?.[1]).toBe(version);
    // Each release heading is a link to what changed since the one before (and Unreleased since it).
    expect(changelog).toContain(`[Unreleased]: ../../compare/v${version}...HEAD`);
    expect(changelog).toMatch(
      new RegExp(`^\\[${version}\\]: \\.\\./\\.\\./compare/v[\\d.]+\\.\\.\\.v${version}$`, 'm'),
    );
  });
});
