import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestApp, workerDatabaseUrl, type TestApp } from '../support/app';
import { pdfBytes } from '../support/files';
import { baseEnv, freePort, ROOT } from '../support/service';

// The README's walkthrough, run as a newcomer would: its `console` blocks from the CLI through
// Users and teams, Requests, Contacts and Files are cut into commands and run with bash and curl
// against the listening service. The README prints the ids of the run it was written from, so each
// record id an answer shows is mapped to the one this run got, and later commands use it. A command
// that names something the walkthrough never made is skipped (and listed); the commands below must run.

const SECTIONS = ['## CLI', '## Authentication', '### Users and teams', '### Requests', '### Contacts', '### Files'];

/** Commands that must have run and answered as the README shows (by a part of their text). */
const WALKTHROUGH = [
  'gather -- org create',
  'gather -- key create',
  'curl -i $B/whoami',
  'teamCreate',
  'carla@acme.example',
  'dan@acme.example',
  'apiKeyCreate',
  'curl -s $B/whoami\n',
  '$CARLA_KEY',
  '$B/teams',
  '"name": "Onboarding documents"',
  '-X PATCH $B/requests/',
  'requests/00000000-0000-4000-8000-000000000000',
  '/close',
  '$B/contacts -d \'{"first_name": "Chen"',
  "$B/attachments -F 'file=@guide.pdf'",
  '$B/contracts?name=SignMe.pdf',
];

type Example = { section: string; command: string; expected: string };

/** Every `$ command` of the chosen sections with the output the README shows under it. */
function examples(readme: string): Example[] {
  const found: Example[] = [];
  let section = '';
  let inside: string | null = null;
  let current: Example | null = null;
  const lines = readme.split('\n');
  for (let i = 0; i < lines.length; i++) {
    // Blocks inside list items are indented.
    const line = lines[i].trimStart();
    if (inside === null && /^#{2,3} /.test(line)) section = line;
    if (line.startsWith('```')) {
      if (inside === null) {
        inside = line.slice(3);
        // A JSON block right after a command that printed nothing is that command's answer.
        if (inside === 'json' && current && current.expected === '' && SECTIONS.some((s) => section.startsWith(s))) {
          const end = lines.findIndex((next, at) => at > i && next.trimStart() === '```');
          current.expected = lines.slice(i + 1, end).join('\n');
        }
        continue;
      }
      inside = null;
      continue;
    }
    if (inside !== 'console' || !SECTIONS.some((s) => section === s || section.startsWith(`${s} `))) continue;
    if (line.startsWith('$ ')) {
      let command = line.slice(2);
      // A command goes on while a quote is open or a line ends with a backslash.
      // (A trailing comment, after two spaces, may hold an apostrophe of its own.)
      const open = (text: string) => (text.replace(/ {2,}#.*$/gm, '').split("'").length - 1) % 2 === 1;
      while (open(command) || command.endsWith('\\')) command += `\n${lines[++i].trimStart()}`;
      current = { section, command, expected: '' };
      found.push(current);
    } else if (current && line.trim()) {
      current.expected += (current.expected ? '\n' : '') + line;
    }
  }
  return found;
}

/**
 * The README's curl calls leave out the key and the JSON content type: the shell adds them. Its npm
 * commands run in the repository, the rest in a scratch folder holding the files they upload.
 */
const PRELUDE = `npm() { command npm --prefix "$GATHER_ROOT" "$@"; }
curl() {
  local auth=1 json=0 form=0
  for arg in "$@"; do
    case "$arg" in
      Authorization:*|authorization:*) auth=0 ;;
      -d|--data|--data-binary) json=1 ;;
      -F|Content-Type:*|content-type:*) form=1 ;;
    esac
  done
  local extra=()
  [ $auth = 1 ] && [ -n "$KEY" ] && extra+=(-H "Authorization: Bearer $KEY")
  [ $json = 1 ] && [ $form = 0 ] && extra+=(-H 'Content-Type: application/json')
  command curl "\${extra[@]}" "$@"
}
`;

const run = promisify(execFile);

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const UNKNOWN = '00000000-0000-4000-8000-000000000000';

describe('README walkthrough, run as written', () => {
  let t: TestApp;
  let dir: string;
  let origin: string;

  beforeAll(async () => {
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    t = await createTestApp({ publicUrl: origin });
    await t.app.listen({ port, host: '127.0.0.1' });
    dir = mkdtempSync(join(tmpdir(), 'gather-readme-'));
    writeFileSync(join(dir, 'guide.pdf'), await pdfBytes('Guide'));
    writeFileSync(join(dir, 'SignMe.pdf'), await pdfBytes('Sign me'));
    writeFileSync(join(dir, 'how-to.txt'), 'Fill in box 3 only.\n');
  });
  afterAll(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('should run the main walkthrough and answer as the README shows', async () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const ids = new Map<string, string>();
    const env: Record<string, string> = { ...baseEnv(), GATHER_ROOT: ROOT, B: origin, DATABASE_URL: workerDatabaseUrl(), GATHER_SECRET: 'x'.repeat(32), LOG_LEVEL: 'silent' };
    const ran: string[] = [];
    const skipped: string[] = [];
    const failures: string[] = [];
    // The npm banner needs npm; the CLI itself runs as `npm run -s gather` would.
    const npm = spawnSync('npm', ['--version'], { encoding: 'utf8' });
    expect(npm.status).toBe(0);

    for (const example of examples(readme)) {
      let command = example.command.replace(/\s+#[^'\n]*$/gm, '');
      for (const [from, to] of ids) command = command.split(from).join(to);
      const unresolved = (command.match(UUID) ?? []).filter((id) => id !== UNKNOWN && ![...ids.values()].includes(id));
      const variables = [...command.matchAll(/\$([A-Z_0-9]+)/g)].map((m) => m[1]).filter((name) => !(name in env));
      // A fresh DATA_DIR's migrate shows every migration; on the test database there are none left.
      if (unresolved.length || variables.length || /…/.test(command) || /gather -- migrate/.test(command)) {
        skipped.push(example.command.split('\n')[0]);
        continue;
      }
      let stdout: string;
      // Authentication shows calls without a key; from the REST API on, every call carries KEY.
      const shell = example.section === '## Authentication' ? { ...env, KEY: '' } : env;
      try {
        // Asynchronously: the service answering these calls runs in this process.
        ({ stdout } = await run('bash', ['-c', PRELUDE + command], { cwd: dir, env: shell, encoding: 'utf8', timeout: 60_000 }));
      } catch (error) {
        const { code, stderr, stdout: out } = error as { code?: number; stderr?: string; stdout?: string };
        failures.push(`${example.command}\n  failed (exit ${code}): ${String(stderr || out || '').slice(0, 400) || 'no output'}`);
        continue;
      }
      const expected = example.expected.replace(/\s+#[^"\n]*$/gm, '');
      // A list the README shows filled by examples this walk does not run (a template's requests,
      // a recipient's documents) answers empty here: not a failure, not a run either.
      if (stdout.trim() === '[]' && /^\s*\[\{/.test(expected)) {
        skipped.push(`${example.command.split('\n')[0]} (empty: its records come from examples not run)`);
        continue;
      }
      ran.push(example.command);
      const problem = compare(expected, stdout);
      if (problem) failures.push(`${example.command}\n  ${problem}\n  README: ${expected.slice(0, 300)}\n  got:    ${stdout.slice(0, 300)}`);
      learn(expected, stdout, ids);
      // The README names keys it made as environment variables (KEY, CARLA_KEY).
      if (/gather -- org create/.test(command)) env.KEY = JSON.parse(stdout).api_key;
      if (/# CARLA_KEY/.test(example.expected)) env.CARLA_KEY = JSON.parse(stdout).data.apiKeyCreate.secret;
    }

    expect(failures).toEqual([]);
    const missing = WALKTHROUGH.filter((part) => !ran.some((command) => (command + '\n').includes(part)));
    expect({ missing, skipped }).toEqual({ missing: [], skipped: expect.any(Array) });
    expect(ran.length).toBeGreaterThanOrEqual(WALKTHROUGH.length);
    // About forty commands, two of them starting the CLI (a few seconds each).
  }, 240_000);
});

/** What differs between the README's answer and this run's, or null. */
function compare(expected: string, actual: string): string | null {
  if (!expected) return null;
  const status = /^HTTP\/1\.1 (\d{3})/.exec(expected);
  if (status) return actual.startsWith(`HTTP/1.1 ${status[1]}`) ? null : `status ${actual.split('\n')[0]}, README ${status[1]}`;
  const json = expected.split('\n').findIndex((line) => /^\s*[[{]/.test(line));
  if (json < 0) return null;
  const text = actual.split('\n').find((line) => /^\s*[[{]/.test(line)) ?? actual;
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
  return absent.length ? `fields the README shows are missing: ${absent.join(', ')}` : null;
}

/** Maps the README's ids (and shortened ids, `4c7d…`) to this run's, by field name, first occurrence each. */
function learn(expected: string, actual: string, ids: Map<string, string>): void {
  const firsts = (text: string) => {
    const seen = new Map<string, string>();
    for (const [, field, value] of text.matchAll(/"([a-z_]*id|api_key|secret)":\s*"([^"]+)"/g)) if (!seen.has(field)) seen.set(field, value);
    return seen;
  };
  const shown = firsts(expected);
  const got = firsts(actual);
  for (const [field, value] of shown) {
    const mine = got.get(field);
    if (mine && value !== mine && !ids.has(value) && value !== UNKNOWN) ids.set(value, mine);
  }
}
