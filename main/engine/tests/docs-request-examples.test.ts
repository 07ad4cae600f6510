// Issue 25, item 13: the docs showed a request shape the server refuses. Every
// request example in docs/*.md is therefore written one way, and sent here to a
// real server (as main/cli/tests/cli.test.ts runs the curl examples of docs/api-with-curl.md):
//
//   ```http
//   POST /api/orgs/1/connected_orgs/
//   Content-Type: application/json
//
//   {"org_name": "Basic Solar"}
//   ```
//
// A fenced block tagged `http` is a request: a request line (method and path), any
// headers, a blank line and a JSON body (or none). The blocks of one page run in
// order against one fresh server on the demo seed, each as the admin of the org in
// its path, and each must answer 2xx. A request line in a block tagged otherwise,
// or a body that is not JSON, fails the test: the convention is the only way to
// show a request, so no example escapes the check.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestServer } from '../testing/test-server.ts';
import { DEMO_USERS } from '../seed/demo-accounts.ts';

const DOCS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../docs');
/** The admin who sends a page's requests to each demo org. */
const ADMIN_OF_ORG: Record<number, string> = { 1: DEMO_USERS.sunriseAdmin, 2: DEMO_USERS.basicAdmin };
const REQUEST_LINE = /^(GET|POST|PUT|PATCH|DELETE) (\/\S*)$/;

interface RequestExample {
  line: number;
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string | undefined;
}

/** Every fenced block of a page: its tag (the info string) and text, with the line it starts on. */
function fencedBlocks(text: string): Array<{ tag: string; body: string; line: number }> {
  const blocks: Array<{ tag: string; body: string; line: number }> = [];
  const lines = text.split('\n');
  for (let index = 0; index < lines.length; index++) {
    const open = /^```(.*)$/.exec(lines[index]!);
    if (!open) continue;
    const start = index;
    const body: string[] = [];
    for (index++; index < lines.length && !/^```\s*$/.test(lines[index]!); index++) body.push(lines[index]!);
    blocks.push({ tag: open[1]!.trim(), body: body.join('\n'), line: start + 1 });
  }
  return blocks;
}

/** The requests of one page, checked for the convention's shape (an assertion names the page and line). */
function requestExamples(page: string, text: string): RequestExample[] {
  const examples: RequestExample[] = [];
  for (const block of fencedBlocks(text)) {
    const [first = '', ...rest] = block.body.split('\n');
    if (block.tag !== 'http') {
      assert.ok(!REQUEST_LINE.test(first.trim()), `${page}:${block.line}: a request example must be a block tagged \`http\` (it is \`${block.tag}\`)`);
      continue;
    }
    const request = REQUEST_LINE.exec(first.trim());
    assert.ok(request, `${page}:${block.line}: an \`http\` block starts with "METHOD /path", not "${first}"`);
    const blank = rest.findIndex((line) => line.trim() === '');
    const headerLines = blank === -1 ? rest : rest.slice(0, blank);
    const bodyText = blank === -1 ? '' : rest.slice(blank + 1).join('\n').trim();
    const headers: Record<string, string> = {};
    for (const header of headerLines) {
      const match = /^([A-Za-z-]+):\s*(.*)$/.exec(header);
      assert.ok(match, `${page}:${block.line}: "${header}" is not a header line`);
      headers[match[1]!.toLowerCase()] = match[2]!;
    }
    if (bodyText) {
      assert.doesNotThrow(() => JSON.parse(bodyText), `${page}:${block.line}: the body is not JSON`);
      assert.match(headers['content-type'] ?? '', /^application\/json/, `${page}:${block.line}: a JSON body needs "Content-Type: application/json"`);
    }
    examples.push({ line: block.line, method: request[1]!, path: request[2]!, headers, body: bodyText || undefined });
  }
  return examples;
}

/** Each page's examples, or why its blocks break the convention (reported by the first test). */
const pages = fs
  .readdirSync(DOCS)
  .filter((name) => name.endsWith('.md'))
  .sort()
  .map((name) => {
    try {
      return { name: `docs/${name}`, examples: requestExamples(`docs/${name}`, fs.readFileSync(path.join(DOCS, name), 'utf8')), problem: null };
    } catch (error) {
      return { name: `docs/${name}`, examples: [], problem: error };
    }
  });

describe('the request examples in docs/*.md work against a real server', () => {
  test('the docs show requests this way, and the connected-orgs pages do', () => {
    for (const page of pages) if (page.problem) throw page.problem;
    const withExamples = pages.filter((page) => page.examples.length > 0).map((page) => page.name);
    assert.ok(withExamples.includes('docs/files.md'), 'docs/files.md "Connected orgs" shows its requests');
    assert.ok(withExamples.includes('docs/access.md'));
  });

  for (const page of pages.filter((candidate) => candidate.examples.length > 0)) {
    test(`${page.name}: every request is answered 2xx, in order, on the demo seed`, async () => {
      const server = await startTestServer();
      try {
        const tokens = new Map<number, string>();
        for (const example of page.examples) {
          const orgId = Number(/^\/api\/orgs\/(\d+)\//.exec(example.path)?.[1] ?? 1);
          const email = ADMIN_OF_ORG[orgId];
          assert.ok(email, `${page.name}:${example.line}: examples use the demo orgs 1 and 2`);
          if (!tokens.has(orgId)) tokens.set(orgId, await server.tokenFor(email));
          const headers = { ...example.headers };
          delete headers.authorization;
          const response = await server.request(example.method, example.path, { token: tokens.get(orgId)!, headers, rawBody: example.body });
          assert.ok(response.status >= 200 && response.status < 300, `${page.name}:${example.line}: ${example.method} ${example.path} answered ${response.status} ${response.text}`);
        }
      } finally {
        await server.close();
      }
    });
  }
});
