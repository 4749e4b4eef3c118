// End-to-end session through `rpcwire proxy`: the official MCP TypeScript SDK client (its own
// Client + StdioClientTransport) against the reference server-everything, with both sides of
// the proxy recorded in the same run.
//
//   node client.mjs RPCWIRE_BINARY OUT_DIR
//
// The transport spawns
//   tee CLIENT_OUT | rpcwire proxy --log LOG -- sh -c 'tee SERVER_IN | node server-everything stdio | tee SERVER_OUT' | tee CLIENT_IN
// so OUT_DIR gets what the client wrote (client-out), what the server read (server-in), what the
// server wrote (server-out), what the client read (client-in), the proxy's log (proxy.log), and
// findings.json (protocol issues of the peers the SDK noticed, see below).
// Any failed expectation, or an error the SDK reports, exits non-zero.

import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import {
  EmptyResultSchema,
  ErrorCode,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  McpError,
} from "@modelcontextprotocol/sdk/types.js";

const [rpcwire, outDir] = process.argv.slice(2);
if (!rpcwire || !outDir) {
  console.error("usage: node client.mjs RPCWIRE_BINARY OUT_DIR");
  process.exit(2);
}
mkdirSync(outDir, { recursive: true });
const out = (name) => resolve(join(outDir, name));
const require = createRequire(import.meta.url);
const server = require.resolve("@modelcontextprotocol/server-everything/dist/index.js", {
  paths: [import.meta.dirname],
});

let failures = 0;
function check(ok, what) {
  if (ok) {
    console.log(`ok - ${what}`);
  } else {
    failures += 1;
    console.log(`not ok - ${what}`);
  }
}

const sdkErrors = [];
const transport = new StdioClientTransport({
  command: "sh",
  args: [
    "-c",
    'tee "$CLIENT_OUT" | "$RPCWIRE" proxy --log "$PROXY_LOG" -- ' +
      "sh -c 'tee \"$SERVER_IN\" | node \"$SERVER\" stdio | tee \"$SERVER_OUT\"' " +
      '| tee "$CLIENT_IN"',
  ],
  env: {
    ...process.env,
    RPCWIRE: resolve(rpcwire),
    SERVER: server,
    CLIENT_OUT: out("client-out"),
    SERVER_IN: out("server-in"),
    SERVER_OUT: out("server-out"),
    CLIENT_IN: out("client-in"),
    PROXY_LOG: out("proxy.log"),
  },
  stderr: "inherit",
});

const client = new Client(
  { name: "rpcwire-e2e", version: "0.1.0" },
  { capabilities: { roots: { listChanged: true } } },
);
client.onerror = (error) => sdkErrors.push(error);
let rootsAsked = 0;
let longProgress = [];
client.setRequestHandler(ListRootsRequestSchema, async () => {
  rootsAsked += 1;
  return { roots: [{ uri: "file:///tmp/rpcwire-e2e", name: "e2e" }] };
});
const logMessages = [];
client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => logMessages.push(n.params));

const text = (result) => result.content?.find((c) => c.type === "text")?.text ?? "";

try {
  await client.connect(transport);
  check(client.getServerVersion()?.name === "mcp-servers/everything", "initialize: server-everything answered");

  check((await client.ping()) !== undefined, "ping");

  const tools = (await client.listTools()).tools.map((t) => t.name);
  check(
    ["echo", "get-sum", "trigger-long-running-operation"].every((t) => tools.includes(t)),
    `tools/list (${tools.length} tools)`,
  );

  const echo = await client.callTool({ name: "echo", arguments: { message: "héllo \u2028 \"wire\"\n" } });
  check(text(echo).includes("héllo \u2028 \"wire\"\n"), "tools/call echo, with escapes and non-ASCII");

  const sum = await client.callTool({ name: "get-sum", arguments: { a: 2, b: 40 } });
  check(text(sum).includes("42"), "tools/call get-sum");

  // Progress notifications for a request with a progress token.
  const progress = [];
  const long = await client.callTool(
    { name: "trigger-long-running-operation", arguments: { duration: 1, steps: 4 } },
    undefined,
    { onprogress: (p) => progress.push(p) },
  );
  check(text(long).includes("completed"), "tools/call trigger-long-running-operation completed");
  // Checked at the end: server-everything may send its last progress notification after the
  // result (a race in the server), which the SDK then reports as an unknown token.
  longProgress = progress;

  // A long call cancelled midway: the SDK sends notifications/cancelled.
  const abort = new AbortController();
  const cancelledProgress = [];
  const cancelled = client.callTool(
    { name: "trigger-long-running-operation", arguments: { duration: 2, steps: 4 } },
    undefined,
    { signal: abort.signal, onprogress: (p) => cancelledProgress.push(p) },
  );
  await sleep(800);
  abort.abort("the e2e test cancels it");
  let rejected = null;
  try {
    await cancelled;
  } catch (e) {
    rejected = e;
  }
  check(rejected !== null, `cancelled call rejected on the client (${rejected})`);

  // A failing call: an unknown tool.
  let failed = null;
  try {
    const r = await client.callTool({ name: "no-such-tool", arguments: {} });
    failed = r.isError ? { isError: true, text: text(r) } : null;
  } catch (e) {
    failed = e instanceof McpError ? { code: e.code, message: e.message } : null;
  }
  check(failed !== null, `failing tools/call reported as an error (${JSON.stringify(failed)})`);

  const resources = (await client.listResources()).resources;
  check(resources.length > 0, `resources/list (${resources.length} resources)`);
  const doc = await client.readResource({ uri: resources[0].uri });
  check(doc.contents.length > 0, `resources/read ${resources[0].uri}`);
  const templates = (await client.listResourceTemplates()).resourceTemplates;
  check(templates.some((t) => t.uriTemplate.includes("/blob/")), "resources/templates/list");
  const blob = await client.readResource({ uri: "demo://resource/dynamic/blob/7" });
  const decoded = Buffer.from(blob.contents[0].blob ?? "", "base64").toString("utf8");
  check(decoded.startsWith("Resource 7:"), `resources/read of a binary blob (${decoded.slice(0, 40)}...)`);

  const prompts = (await client.listPrompts()).prompts.map((p) => p.name);
  check(prompts.includes("simple-prompt") && prompts.includes("args-prompt"), "prompts/list");
  const prompt = await client.getPrompt({ name: "args-prompt", arguments: { city: "Zürich" } });
  check(prompt.messages[0].content.text.includes("Zürich"), "prompts/get with arguments");

  // An unknown method: -32601.
  let unknown = null;
  try {
    await client.request({ method: "rpcwire/unknown-method", params: {} }, EmptyResultSchema);
  } catch (e) {
    unknown = e;
  }
  check(unknown instanceof McpError && unknown.code === ErrorCode.MethodNotFound, `unknown method: -32601 (${unknown})`);

  // Let the cancelled operation run out on the server (2 s from its start), then ping again.
  await sleep(1500);
  check((await client.ping()) !== undefined, "ping after the cancelled operation ran out");
  check(rootsAsked >= 1, `the server asked for the roots (${rootsAsked}) and got them`);
} catch (e) {
  failures += 1;
  console.log(`not ok - unexpected error: ${e?.stack ?? e}`);
} finally {
  await client.close();
}

// The proxy writes its summary last, once the server has exited.
const log = out("proxy.log");
for (let i = 0; i < 100; i++) {
  if (existsSync(log) && readFileSync(log, "utf8").includes('"summary"')) break;
  await sleep(100);
}
check(existsSync(log) && readFileSync(log, "utf8").includes('"summary"'), "the proxy finished and wrote its summary");
// A finding, not a failure of the proxy: server-everything (2026.8.31) goes on sending
// notifications/progress for a request after the client cancelled it, which the SDK reports as
// "a progress notification for an unknown token". Those, for the cancelled request's token
// only, are listed in findings.json; any other SDK error fails the run.
const sent = readFileSync(out("client-out"), "utf8").split("\n").filter((l) => l).map((l) => JSON.parse(l));
const cancelledIds = new Set(
  sent.filter((m) => m.method === "notifications/cancelled").map((m) => JSON.stringify(m.params.requestId)),
);
const cancelledTokens = new Set(
  sent
    .filter((m) => m.id !== undefined && cancelledIds.has(JSON.stringify(m.id)))
    .map((m) => JSON.stringify(m.params?._meta?.progressToken)),
);
const completedTokens = new Set(
  sent
    .filter((m) => m.id !== undefined && !cancelledIds.has(JSON.stringify(m.id)) && m.params?._meta?.progressToken !== undefined)
    .map((m) => JSON.stringify(m.params._meta.progressToken)),
);
const findings = [];
const otherErrors = [];
const lateProgress = [];
for (const error of sdkErrors) {
  const match = /progress notification for an unknown token: (.*)$/s.exec(String(error.message));
  const token = match ? JSON.stringify(JSON.parse(match[1]).params?.progressToken) : undefined;
  if (token !== undefined && cancelledTokens.has(token)) {
    findings.push({ finding: "progress notification after cancellation", notification: JSON.parse(match[1]) });
  } else if (token !== undefined && completedTokens.has(token)) {
    findings.push({ finding: "progress notification after the result", notification: JSON.parse(match[1]) });
    lateProgress.push(JSON.parse(match[1]).params);
  } else {
    otherErrors.push(error);
  }
}
// Every step of the completed operation was reported, in order, before or (late) after its result.
const allProgress = [...longProgress, ...lateProgress];
check(
  allProgress.length === 4 && allProgress.every((p, i) => p.progress === i + 1 && p.total === 4),
  `4 progress notifications (${JSON.stringify(longProgress)} before the result, ${JSON.stringify(lateProgress)} after)`,
);
writeFileSync(out("findings.json"), JSON.stringify(findings, null, 2) + "\n");
for (const f of findings) {
  console.log(`# finding (${f.finding}): server-everything sent ${JSON.stringify(f.notification)}`);
}
check(otherErrors.length === 0, `no other error reported by the SDK (${otherErrors.map(String).join("; ")})`);
console.log(`# log messages from the server: ${logMessages.length}`);
console.log(failures === 0 ? "# e2e session passed" : `# ${failures} failed`);
process.exit(failures === 0 ? 0 : 1);
