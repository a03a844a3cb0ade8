import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app';
import { createTestApp, createTenant, testConfig, workerDatabaseUrl, type TestApp } from '../support/app';
import { pdfBytes } from '../support/files';
import { baseEnv, freePort, ROOT } from '../support/service';
import { startSmtpServer } from '../support/smtp';

// The README and the guides in docs/, run as a newcomer would: every `console` block is cut into
// commands and run with bash and curl, as written (each call carries its own Authorization header),
// against the listening service (its workers running, mail going to a real SMTP server on loopback).
// The pages print the ids, links and codes of the runs they were written from, so each one an answer
// shows is mapped to the one this run got, and later commands use it. A command that cannot run as
// written is listed in SKIPPED with the reason; any other must run and answer as the page shows (its
// status line, the fields and states of its JSON, its plain-text lines). Then the `js`, `graphql` and
// `sql` snippets meant to be run: the subscription script, the catch-up query and the queue's SQL.

/** The pages whose examples run, in the order they run: the quick start first, then each guide. */
const PAGES = [
  'README.md',
  'docs/rest.md',
  'docs/recipients.md',
  'docs/webhooks.md',
  'docs/graphql.md',
  'docs/operations.md',
];

/** Commands not run (by a part of their text), and why. */
const SKIPPED: Record<string, string> = {
  'bulk-sends/csv':
    'its job makes requests for new contacts while the later examples run, which list requests, contacts and webhook deliveries (test/integration/bulk-sends/bulk-sends.test.ts runs it)',
  '$B/bulk-sends/': 'reads the bulk send of the skipped example before it',
  'on a fresh DATA_DIR':
    'needs a database no migration ran on; test/integration/cli.test.ts migrates a fresh DATA_DIR (the test database is migrated, as the "again" example shows)',
};

/** Poppler's pdfsig: `npm run test:e2e` installs it where missing; `npm test` does not need it. */
const WITHOUT_PDFSIG: Record<string, string> = Object.fromEntries(
  ['pdfsig "', 'check-pdf-signature.sh', 'npm run check:signing'].map((part) => [
    part,
    'pdfsig (Debian poppler-utils) is not installed here; `npm run test:e2e` installs it',
  ]),
);
if (spawnSync('pdfsig', ['-v']).error) Object.assign(SKIPPED, WITHOUT_PDFSIG);

/**
 * The REST guide describes requests before the forms and templates they use, asks about another
 * organization's request before making it, and restricts its organization's sign-in methods before the
 * recipients guide signs in with a security question: its run made them in this order (section: the one
 * it ran after).
 */
const RUN_AFTER: Record<string, string> = {
  'docs/rest.md ## Forms': 'docs/rest.md ## Users and teams',
  'docs/rest.md ## Templates': 'docs/rest.md ## Forms',
  'docs/rest.md ## Bulk send': 'docs/rest.md ## Templates',
  'docs/rest.md ## Authentication': 'docs/rest.md ## Requests',
  'docs/rest.md ## Organization settings, branding and the confirmation page': 'docs/recipients.md ## E-signing',
};

type Example = { section: string; command: string; expected: string };

/** The examples in the order the pages' run made them. */
function inRunOrder(found: Example[]): Example[] {
  const sections = [...new Set(found.map((example) => example.section))];
  for (const [section, after] of Object.entries(RUN_AFTER)) {
    if (!sections.includes(section) || !sections.includes(after))
      throw new Error(`RUN_AFTER names ${section} or ${after}, no section`);
    sections.splice(sections.indexOf(section), 1);
    sections.splice(sections.indexOf(after) + 1, 0, section);
  }
  return sections.flatMap((section) => found.filter((example) => example.section === section));
}

/** Every `$ command` of a page's `console` blocks with the output the page shows under it. */
function examples(page: string, text: string): Example[] {
  const found: Example[] = [];
  let section = page;
  let inside: string | null = null;
  let current: Example | null = null;
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    // Blocks inside list items are indented.
    const line = lines[i].trimStart();
    if (inside === null && /^#{1,3} /.test(line)) {
      section = `${page} ${line}`;
      current = null;
    }
    if (line.startsWith('```')) {
      if (inside === null) {
        inside = line.slice(3);
        // A JSON block right after a command that printed nothing is that command's answer.
        if (inside === 'json' && current && current.expected === '') {
          const end = lines.findIndex((next, at) => at > i && next.trimStart() === '```');
          current.expected = lines.slice(i + 1, end).join('\n');
        }
        continue;
      }
      inside = null;
      continue;
    }
    if (inside !== 'console') continue;
    if (line.startsWith('$ ')) {
      let command = line.slice(2);
      // A command goes on while a quote is open or a line ends with a backslash, and through its here-document.
      // (A trailing comment, after two spaces, may hold an apostrophe of its own.)
      const open = (text: string) =>
        (text
          .replace(/ {2,}#.*$/gm, '')
          .replace(/<<'\w+'/, '')
          .split("'").length -
          1) %
          2 ===
        1;
      while (open(command) || command.endsWith('\\')) command += `\n${lines[++i].trimStart()}`;
      const here = /<<'(\w+)'/.exec(command);
      if (here) while (lines[i].trim() !== here[1]) command += `\n${lines[++i]}`;
      current = { section, command, expected: '' };
      found.push(current);
    } else if (current && line.trim() && !line.startsWith('# ')) {
      current.expected += (current.expected ? '\n' : '') + line;
    }
  }
  return found;
}

/**
 * The pages' commands run as written, in a scratch folder holding the files they upload and links to
 * the repository's folders they name (examples/, scripts/); npm runs in the repository, as a reader's does.
 */
const PRELUDE = `npm() { command npm --prefix "$GATHER_ROOT" "$@"; }
npx() { (cd "$GATHER_ROOT" && command npx "$@"); }
`;

const run = promisify(execFile);

/**
 * bash reads ~/.bashrc when its stdin is a socket, as Node's pipes are (its rsh rule): a machine's rc (pyenv's init
 * here) then costs about 0.6 s per command. A reader's terminal reads it once; `--norc` keeps the run at that.
 */
const BASH = ['--norc', '-c'];

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const UNKNOWN = '00000000-0000-4000-8000-000000000000';

describe('README examples, run as written', () => {
  let t: TestApp;
  let limited: FastifyInstance;
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  let dir: string;
  let origin: string;
  let limitedOrigin: string;
  const background: ChildProcess[] = [];
  /** The pages, each by its path. */
  const pages: Record<string, string> = {};
  let key: string;
  /** Each command the walk ran, with its ids in place, and what it printed. */
  const outputs: Array<{ command: string; stdout: string }> = [];

  beforeAll(async () => {
    for (const page of PAGES) pages[page] = readFileSync(join(ROOT, page), 'utf8');
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    smtp = await startSmtpServer();
    // The workers run, as under `npm start`: webhooks go out, mail reaches the SMTP server, timed work runs.
    t = await createTestApp(
      { publicUrl: origin, mail: { from: 'Gather <no-reply@gather.test>', smtpUrl: smtp.url } },
      { runJobs: true },
    );
    await t.app.listen({ port, host: '127.0.0.1' });
    // Rate limits shows a service started with RATE_LIMIT_API_KEY=5: a second instance on the same database.
    limited = await buildApp({
      config: testConfig({ ...t.config, rateLimits: { ...t.config.rateLimits, apiKey: 5 } }),
      orm: t.orm,
      storage: t.storage,
      runJobs: false,
    });
    const limitedPort = await freePort();
    await limited.listen({ port: limitedPort, host: '127.0.0.1' });
    limitedOrigin = `http://127.0.0.1:${limitedPort}`;
    dir = mkdtempSync(join(tmpdir(), 'gather-readme-'));
    for (const name of ['guide.pdf', 'SignMe.pdf', 'passport.pdf', 'scan.pdf', 'w2.pdf', 'jan.pdf'])
      writeFileSync(join(dir, name), await pdfBytes(name));
    // The pages' commands run in the repository: the scratch folder links the folders they name.
    symlinkSync(join(ROOT, 'scripts'), join(dir, 'scripts'));
    symlinkSync(join(ROOT, 'examples'), join(dir, 'examples'));
    writeFileSync(join(dir, 'how-to.txt'), 'Fill in box 3 only.\n');
    writeFileSync(
      join(dir, 'logo.svg'),
      '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10" fill="#0a7b3e"/></svg>\n',
    );
    // Two app instances and an SMTP server: longer than a hook's default on a busy machine.
  }, 180_000);
  afterAll(async () => {
    for (const child of background) if (child.exitCode === null) process.kill(-child.pid!, 'SIGTERM');
    await limited.close();
    await t.close();
    await smtp.close();
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it('should run every command of the README and the guides and answer as they show', async () => {
    const ids = new Map<string, string>();
    const env: Record<string, string> = {
      ...baseEnv(),
      GATHER_ROOT: ROOT,
      B: origin,
      DATABASE_URL: workerDatabaseUrl(),
      GATHER_SECRET: 'x'.repeat(32),
      LOG_LEVEL: 'silent',
    };
    // The quick start's "Default organization" is the one a first start makes, with the admin key it
    // was given (GATHER_ADMIN_API_KEY); the quick start runs with it.
    env.DEFAULT_ORG_KEY = (await createTenant(t.db, 'Default organization')).apiKey;
    const quickStartKey = /GATHER_ADMIN_API_KEY=(\S+) npm start/.exec(pages['README.md'])![1];
    ids.set(quickStartKey, env.DEFAULT_ORG_KEY);
    env.KEY = env.DEFAULT_ORG_KEY;
    // The address the pages give (npm start's default) is this run's.
    ids.set('http://127.0.0.1:3000', origin);
    // Ports the pages name that this run must not take from others running beside it.
    const ports: Record<string, number> = { '4577': await freePort(), '4599': await freePort() };
    for (const [named, port] of Object.entries(ports)) ids.set(named, String(port));
    ids.set('/tmp/s3', join(dir, 's3'));
    const all = PAGES.map((page) => pages[page]).join('\n');
    const readmeCode = /sign-in code for "[^"]+" is:\n\n(\d{6})/.exec(all)![1];
    const ran: string[] = [];
    const skipped: string[] = [];
    const failures: string[] = [];
    // The npm banner needs npm; the CLI itself runs as `npm run -s gather` would.
    const npm = spawnSync('npm', ['--version'], { encoding: 'utf8' });
    expect(npm.status).toBe(0);

    for (const example of inRunOrder(PAGES.flatMap((page) => examples(page, pages[page])))) {
      let command = example.command.replace(/\s+#[^'\n]*$/gm, '');
      for (const [from, to] of ids) command = command.split(from).join(to);
      // Idempotency keys are the caller's own, not ids of records.
      const unresolved = (command.replace(/Idempotency-Key: [^']+/g, '').match(UUID) ?? []).filter(
        (id) => id !== UNKNOWN && ![...ids.values()].includes(id),
      );
      const assigned = [...command.matchAll(/(?:^|;\s*|export\s+)([A-Z][A-Z0-9_]*)=/g)].map((m) => m[1]);
      const variables = [...command.matchAll(/\$([A-Z_0-9]+)/g)]
        .map((m) => m[1])
        .filter((name) => !(name in env) && !assigned.includes(name));
      const reason = Object.keys(SKIPPED).find((part) => example.command.includes(part));
      if (reason || unresolved.length || variables.length || /…/.test(command)) {
        skipped.push(example.command);
        continue;
      }
      // Rate limits shows a service started with RATE_LIMIT_API_KEY=5.
      const shell = { ...env, B: example.section === 'docs/rest.md ## Rate limits' ? limitedOrigin : env.B };
      if (/&$/.test(command.trim())) {
        // A server a page starts in the background (a bucket, a webhook receiver): it runs until the test ends.
        const child = spawn('bash', [...BASH, PRELUDE + command.trim().replace(/&$/, '')], {
          cwd: dir,
          env: shell,
          detached: true,
          stdio: 'ignore',
        });
        background.push(child);
        await waitForPort(Number(Object.values(ports).find((port) => command.includes(String(port)))));
        ran.push(example.command);
        continue;
      }
      const mails = smtp.received.length;
      const began = Date.now();
      let stdout: string;
      try {
        // Asynchronously: the service answering these calls runs in this process.
        const script =
          PRELUDE +
          command +
          (assigned.length ? `\nprintf '\\0%s' ${assigned.map((name) => `"$${name}"`).join(' ')}` : '');
        ({ stdout } = await run('bash', [...BASH, script], {
          cwd: dir,
          env: shell,
          encoding: 'utf8',
          timeout: /\bnpm\b/.test(command) ? 300_000 : 120_000,
        }));
      } catch (error) {
        const { code, stderr, stdout: out } = error as { code?: number; stderr?: string; stdout?: string };
        if (process.env.EXAMPLES_LOG)
          appendFileSync(
            process.env.EXAMPLES_LOG,
            `FAILED (exit ${code}) ${example.section}: ${example.command.slice(0, 120)}\n  ${String(stderr || out || '').slice(0, 300)}\n`,
          );
        failures.push(
          `${example.command}\n  failed (exit ${code}): ${String(stderr || out || '').slice(0, 400) || 'no output'}`,
        );
        continue;
      }
      if (assigned.length) {
        const values = stdout.split('\0');
        stdout = values.shift()!;
        assigned.forEach((name, at) => (env[name] = values[at]));
      }
      // EXAMPLES_LOG=file: each command with its time, to find a slow one.
      if (process.env.EXAMPLES_LOG)
        appendFileSync(
          process.env.EXAMPLES_LOG,
          `${Date.now() - began} ms ${example.section}: ${command.slice(0, 120)}\n`,
        );
      const expected = example.expected.replace(/ {2,}#[^"\n]*$/gm, '');
      ran.push(example.command);
      outputs.push({ command, stdout });
      const problem = compare(command, expected, stdout);
      if (problem && process.env.EXAMPLES_LOG)
        appendFileSync(process.env.EXAMPLES_LOG, `  FAILED: ${problem}\n  got: ${stdout.slice(0, 600)}\n`);
      if (problem)
        failures.push(
          `${example.command}\n  ${problem}\n  README: ${expected.slice(0, 300)}\n  got:    ${stdout.slice(0, 300)}`,
        );
      learn(expected, stdout, ids);
      // The REST guide names keys it made as environment variables (CARLA_KEY, DAN_KEY).
      const named = /# ([A-Z]+_KEY)/.exec(example.expected);
      if (named) env[named[1]] = JSON.parse(stdout).data.apiKeyCreate.secret;
      // The sign-in code the recipients guide's mail shows is the one the SMTP server got.
      if (/\/api\/code$/.test(command) && !/-si/.test(command)) {
        const code = await mailedCode(smtp.received, mails);
        ids.set(readmeCode, code);
      }
    }

    // The key the later tests use (Olga's), whether or not a command failed.
    key = env.KEY;
    const unlisted = skipped.filter((command) => !Object.keys(SKIPPED).some((part) => command.includes(part)));
    const stale = Object.keys(SKIPPED).filter((part) => !skipped.some((command) => command.includes(part)));
    expect({ failures, unlisted, stale }).toEqual({ failures: [], unlisted: [], stale: [] });
    expect(ran.length).toBeGreaterThan(150);
    // About 210 commands, each a bash and a curl or two: 2 to 4 minutes on a quiet two-core machine; 30 on
    // one whose cores are always taken (every process waiting for CPU), which this bound still covers.
  }, 2_700_000);

  it("should print the GraphQL guide's line for a renamed request from its subscription snippet", async () => {
    const folder = mkdtempSync(join(tmpdir(), 'gather-watch-'));
    // `npm install graphql-ws ws` in the reader's folder: here the repository's copies.
    symlinkSync(join(ROOT, 'node_modules'), join(folder, 'node_modules'));
    writeFileSync(
      join(folder, 'watch.mjs'),
      snippet(pages['docs/graphql.md'], '## Live updates (subscriptions)', 'js').replace(
        'ws://127.0.0.1:3000',
        origin.replace('http', 'ws'),
      ),
    );
    const watcher = spawn(process.execPath, ['watch.mjs'], { cwd: folder, env: { ...baseEnv(), KEY: key } });
    let printed = '';
    watcher.stdout!.on('data', (chunk) => (printed += chunk));
    watcher.stderr!.on('data', (chunk) => (printed += chunk));
    try {
      const [id] = JSON.parse(
        (
          await run('curl', ['-s', `${origin}/requests?limit=1`, '-H', `Authorization: Bearer ${key}`], {
            encoding: 'utf8',
          })
        ).stdout,
      ).map((r: { id: string }) => r.id);
      // Renamed (each time anew: the same name is no change) until the subscription, which starts once the socket is
      // open, sees one.
      for (let attempt = 0; !printed.includes('\n') && attempt < 60; attempt++) {
        await run('curl', [
          '-s',
          '-X',
          'PATCH',
          `${origin}/requests/${id}`,
          '-H',
          `Authorization: Bearer ${key}`,
          '-H',
          'Content-Type: application/json',
          '-d',
          `{"name": "Renamed ${attempt}"}`,
        ]);
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      const shown = /prints\n`(\{"data":\{"requestUpdated".*\})`/.exec(pages['docs/graphql.md'])![1];
      expect(compare('', shown, printed.split('\n')[0])).toBeNull();
      expect(JSON.parse(printed.split('\n')[0]).data.requestUpdated).toMatchObject({
        id,
        name: expect.stringMatching(/^Renamed/),
      });
    } finally {
      watcher.kill();
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it("should answer the GraphQL guide's catch-up query and run the operations guide's SQL", async () => {
    const query = snippet(pages['docs/graphql.md'], '## Catching up: requestEvents, and the dashboard', 'graphql');
    const answer = JSON.parse(
      (
        await run(
          'curl',
          [
            '-s',
            `${origin}/graphql`,
            '-H',
            `Authorization: Bearer ${key}`,
            '-H',
            'Content-Type: application/json',
            '-d',
            JSON.stringify({ query }),
          ],
          { encoding: 'utf8' },
        )
      ).stdout,
    );
    expect(answer.errors).toBeUndefined();
    expect(answer.data.requestEvents.nodes.length).toBeGreaterThan(0);
    const connection = t.orm.em.fork().getConnection();
    const statements = snippet(pages['docs/operations.md'], '## Timed work: the queue', 'sql')
      .split('\n')
      .map((line) => line.replace(/--.*$/, '').trim())
      .filter(Boolean);
    expect(statements).toHaveLength(5);
    for (const statement of statements) await expect(connection.execute(statement)).resolves.toBeInstanceOf(Array);
  });
});

/** The first `language` block of a page's section. */
function snippet(page: string, section: string, language: string): string {
  const from = page.indexOf(`\n${section}\n`);
  if (from < 0) throw new Error(`no section ${section}`);
  const start = page.indexOf(`\n\`\`\`${language}\n`, from) + language.length + 5;
  return page.slice(start, page.indexOf('\n```', start));
}

async function waitForPort(port: number): Promise<void> {
  for (let tries = 0; tries < 300; tries++) {
    try {
      await fetch(`http://127.0.0.1:${port}/`);
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error(`nothing listens on ${port}`);
}

async function mailedCode(
  received: Awaited<ReturnType<typeof startSmtpServer>>['received'],
  after: number,
): Promise<string> {
  for (let tries = 0; tries < 100; tries++) {
    const mail = received.slice(after).find((m) => /code/i.test(m.mail.subject ?? ''));
    if (mail) return /\b(\d{6})\b/.exec(mail.mail.text ?? '')![1];
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('no code reached the SMTP server');
}

/** What differs between the README's answer and this run's, or null. */
function compare(command: string, expected: string, actual: string): string | null {
  if (!expected) return null;
  const status = /^HTTP\/1\.1 (\d{3})/.exec(expected);
  if (status)
    return actual.startsWith(`HTTP/1.1 ${status[1]}`) ? null : `status ${actual.split('\n')[0]}, README ${status[1]}`;
  const json = expected.split('\n').findIndex((line) => /^\s*[[{]/.test(line));
  if (json < 0) {
    // Plain text: every line the README shows, numbers aside (times, sizes).
    const digitless = (text: string) => text.replace(/\d+/g, '0').trim();
    const lines = new Set(actual.split('\n').map(digitless));
    const absent = expected.split('\n').filter((line) => !line.includes('…') && !lines.has(digitless(line)));
    return absent.length ? `lines the README shows are missing: ${absent.join(' | ')}` : null;
  }
  const text = actual.split('\n').find((line) => /^\s*[[{]/.test(line)) ?? actual;
  // A cut answer (`head -c`) is shown as it starts.
  if (/\| head -c/.test(command)) return actual.startsWith(expected) ? null : 'another beginning';
  try {
    JSON.parse(text);
  } catch {
    return 'the answer is not JSON';
  }
  const shown = expected.split('\n').slice(json).join('\n');
  const detail = /^\{"detail":\s*("[^"]*")\}/.exec(shown.trim());
  if (detail) return text.trim() === `{"detail":${detail[1]}}` ? null : 'another detail';
  if (/"detail"/.test(text) && !/"detail"/.test(shown)) return 'an error where the README shows a record';
  // Every field the README shows is in the answer.
  const fields = [...new Set([...shown.matchAll(/"([A-Za-z_]+)":/g)].map((m) => m[1]))];
  const absent = fields.filter((field) => !text.includes(`"${field}":`));
  if (absent.length) return `fields the README shows are missing: ${absent.join(', ')}`;
  // And the states it shows.
  const states = (json: string) => new Set([...json.matchAll(/"(?:state|status)":\s*"([A-Z_]+)"/g)].map((m) => m[1]));
  const got = states(text);
  const other = [...states(shown)].filter((state) => !got.has(state));
  return other.length ? `states the README shows are not in the answer: ${other.join(', ')}` : null;
}

/**
 * Maps the README's ids (and shortened ids, `4c7d…`), secrets, passwords, session tokens and link
 * tokens to this run's, by field name, first occurrence each.
 */
function learn(expected: string, actual: string, ids: Map<string, string>): void {
  const firsts = (text: string) => {
    const seen = new Map<string, string>();
    for (const [, field, value] of text.matchAll(
      /"([A-Za-z_]*(?:id|Id)|api_key|secret|password|session_token|[a-z_]*link|requestLink)":\s*"([^"]+)"/g,
    )) {
      if (!seen.has(field))
        seen.set(field, /link$/i.test(field) ? value.replace(/^.*\/[rs]\/([^/]+).*$/, '$1') : value);
    }
    return seen;
  };
  // Ids of a list's records (items, recipients' documents) go by the name that follows each.
  const named = (text: string) =>
    new Map(
      [...text.matchAll(/"id":\s*"([^"]+)",\s*"(?:name|file_name)":\s*"([^"]+)"/g)]
        .reverse()
        .map(([, id, name]) => [name, id]),
    );
  // Records inside another by its field name (`"recipient":{"id":…}`), first occurrence each.
  const nested = (text: string) =>
    new Map([...text.matchAll(/"(\w+)":\s*\{\s*"id":\s*"([^"]+)"/g)].reverse().map(([, field, id]) => [field, id]));
  const inside = nested(actual);
  const pairs = [...firsts(expected)].map(([field, value]) => [value, firsts(actual).get(field)]);
  const byName = named(actual);
  for (const [name, value] of named(expected)) pairs.push([value, byName.get(name)]);
  for (const [field, value] of nested(expected)) pairs.push([value, inside.get(field)]);
  for (const [value, mine] of pairs)
    if (value && mine && value !== '…' && value !== mine && !ids.has(value) && value !== UNKNOWN) ids.set(value, mine);
}
