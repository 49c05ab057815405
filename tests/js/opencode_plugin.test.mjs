// Tests of hindsight's opencode/Kilo plugin (src/hindsight/hooks/plugins/opencode.js) with
// Node's test runner: `node --test tests/js` (run by scripts/test.sh). The hooks are driven
// as opencode drives them (packages/plugin/src/index.ts: hooks mutate `output`); `runHook`
// starts real processes; the last test runs the real `python -P -m hindsight hook …` in a
// real git repository ($HINDSIGHT_TEST_PYTHON, default `python3`, must import hindsight).

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const PLUGIN = path.join(here, "..", "..", "src", "hindsight", "hooks", "plugins",
  "opencode.js");
const mod = await import(PLUGIN);
const { HindsightPlugin } = mod;
const { createHooks, runHook } = HindsightPlugin;
const CONFIG = { argv: ["python3", "-P", "-m", "hindsight"], env: {}, harness: "opencode" };

test("the module exports one function, the plugin (opencode loads every export)", () => {
  assert.deepEqual(Object.keys(mod), ["HindsightPlugin"]);
  assert.equal(typeof HindsightPlugin, "function");
  assert.deepEqual(HindsightPlugin.CONFIG, CONFIG);
});

/** A stand-in for runHook that records calls and answers from `answers[event]`. */
function recorder(answers = {}) {
  const calls = [];
  const run = async (config, event, payload, cwd) => {
    calls.push({ harness: config.harness, event, payload, cwd });
    const a = answers[event];
    return typeof a === "function" ? a(payload) : a ?? "{}\n";
  };
  return { calls, run };
}

const ctx = (text) => JSON.stringify({ additional_context: text }) + "\n";

test("first message briefs, every message recalls, both go into the system prompt", async () => {
  const { calls, run } = recorder({ "session-start": ctx("BRIEF"),
    "user-prompt-submit": (p) => (p.prompt.includes("refund") ? ctx("NOTES") : "{}\n") });
  const hooks = createHooks(CONFIG, { directory: "/w/repo" }, run);
  await hooks["chat.message"]({ sessionID: "ses_1" }, { message: {}, parts: [
    { type: "text", text: "fix the refund bug" },
    { type: "text", text: "FILE CONTENT", synthetic: true },
    { type: "file", url: "file:///w/repo/a.py" }] });
  assert.deepEqual(calls.map((c) => [c.event, c.payload, c.cwd]), [
    ["session-start", { cwd: "/w/repo", session_id: "ses_1", source: "startup" }, "/w/repo"],
    ["user-prompt-submit", { cwd: "/w/repo", session_id: "ses_1",
      prompt: "fix the refund bug" }, "/w/repo"]]);
  const out = { system: ["opencode's own prompt"] };
  await hooks["experimental.chat.system.transform"]({ sessionID: "ses_1" }, out);
  assert.deepEqual(out.system, ["opencode's own prompt", "BRIEF", "NOTES"]);

  // the next message of the session: no second briefing; its notes replace the last ones
  await hooks["chat.message"]({ sessionID: "ses_1" }, { parts: [
    { type: "text", text: "now the invoices" }] });
  assert.equal(calls.length, 3);
  assert.equal(calls[2].event, "user-prompt-submit");
  const again = { system: [] };
  await hooks["experimental.chat.system.transform"]({}, again); // no sessionID: the last one
  assert.deepEqual(again.system, ["BRIEF"]);
  const other = { system: [] };
  await hooks["experimental.chat.system.transform"]({ sessionID: "ses_unknown" }, other);
  assert.deepEqual(other.system, []);
});

test("edits of edit/write tools are recorded; other tools are not", async () => {
  const { calls, run } = recorder();
  const hooks = createHooks({ ...CONFIG, harness: "kilo" }, { directory: "/w/repo" }, run);
  await hooks["tool.execute.after"]({ tool: "edit", sessionID: "ses_2", callID: "c1",
    args: { filePath: "/w/repo/pay.py", oldString: "a", newString: "b" } },
  { title: "", output: "OUTPUT", metadata: {} });
  await hooks["tool.execute.after"]({ tool: "bash", sessionID: "ses_2", callID: "c2",
    args: { command: "ls" } }, { title: "", output: "", metadata: {} });
  await hooks["tool.execute.after"]({ tool: "write", sessionID: "ses_2", callID: "c3" },
    { title: "", output: "", metadata: {} }); // no path anywhere: nothing to record
  assert.deepEqual(calls.map((c) => [c.harness, c.event, c.payload]), [
    ["kilo", "edit", { cwd: "/w/repo", session_id: "ses_2", file_path: "/w/repo/pay.py" }]]);
});

test("session.idle sends the finished messages not sent before", async () => {
  const { calls, run } = recorder({ stop: "{}\n" });
  const msgs = [
    { info: { id: "msg_1", role: "user", sessionID: "ses_3" }, parts: [] },
    { info: { id: "msg_2", role: "assistant", time: { created: 1, completed: 2 } }, parts: [] },
    { info: { id: "msg_3", role: "assistant", time: { created: 3 } }, parts: [] }];
  const asked = [];
  const client = { session: { messages: async (q) => { asked.push(q); return { data: msgs }; } } };
  const hooks = createHooks(CONFIG, { directory: "/w/repo", client }, run);
  await hooks.event({ event: { type: "message.updated", properties: {} } });
  await hooks.event({ event: { type: "session.idle", properties: { sessionID: "ses_3" } } });
  assert.deepEqual(asked, [{ path: { id: "ses_3" } }]);
  assert.deepEqual(calls.map((c) => [c.event, c.payload.messages.map((m) => m.info.id)]),
    [["stop", ["msg_1", "msg_2"]]]); // msg_3 is still being written
  msgs[2].info.time.completed = 4;
  await hooks.event({ event: { type: "session.idle", properties: { sessionID: "ses_3" } } });
  assert.deepEqual(calls[1].payload.messages.map((m) => m.info.id), ["msg_3"]);
  await hooks.event({ event: { type: "session.idle", properties: { sessionID: "ses_3" } } });
  assert.equal(calls.length, 2); // nothing new
});

test("a failed write-back is sent again at the next idle", async () => {
  let answer = "";
  const { calls, run } = recorder({ stop: () => answer });
  const client = { session: { messages: async () => [
    { info: { id: "msg_1", role: "user" }, parts: [] }] } };
  const hooks = createHooks(CONFIG, { directory: "/w", client }, run);
  await hooks.event({ event: { type: "session.idle", properties: { sessionID: "s" } } });
  answer = "{}\n";
  await hooks.event({ event: { type: "session.idle", properties: { sessionID: "s" } } });
  await hooks.event({ event: { type: "session.idle", properties: { sessionID: "s" } } });
  assert.equal(calls.length, 2);
});

test("hooks never throw: a broken client, bad answers, missing fields", async () => {
  const { run } = recorder({ "session-start": "not json", "user-prompt-submit": "[1]" });
  const client = { session: { messages: async () => { throw new Error("server gone"); } } };
  const hooks = createHooks(CONFIG, { client }, run);
  await hooks["chat.message"](undefined, undefined);
  await hooks["chat.message"]({ sessionID: "s" }, { parts: "nope" });
  await hooks["experimental.chat.system.transform"]({ sessionID: "s" }, {});
  const out = { system: [] };
  await hooks["experimental.chat.system.transform"]({ sessionID: "s" }, out);
  assert.deepEqual(out.system, []);
  await hooks["tool.execute.after"](undefined, undefined);
  await hooks.event({ event: { type: "session.idle", properties: { sessionID: "s" } } });
  await hooks.event({});
});

function tmp() {
  return fs.mkdtempSync(path.join(os.tmpdir(), "hs-plugin-"));
}

/** An executable standing in for python: prints its arguments and stdin as JSON. */
function fakePython(dir, body) {
  const exe = path.join(dir, "fake-python");
  fs.writeFileSync(exe, `#!${process.execPath}\n${body}\n`, { mode: 0o755 });
  return exe;
}

test("runHook passes the event, harness, payload, directory and environment", async () => {
  const dir = tmp();
  const exe = fakePython(dir, `let d = ""; process.stdin.on("data", (c) => (d += c));
process.stdin.on("end", () => process.stdout.write(JSON.stringify({ args: process.argv.slice(2),
  stdin: JSON.parse(d), cwd: process.cwd(), home: process.env.HINDSIGHT_HOME })));`);
  const config = { argv: [exe, "-P", "-m", "hindsight"], env: { HINDSIGHT_HOME: "/h" },
    harness: "kilo" };
  const out = JSON.parse(await runHook(config, "edit", { session_id: "s", file_path: "x" },
    dir));
  assert.deepEqual(out, { args: ["-P", "-m", "hindsight", "hook", "edit", "--harness", "kilo"],
    stdin: { session_id: "s", file_path: "x" }, cwd: fs.realpathSync(dir), home: "/h" });
});

test("runHook gives up at the event's budget, and on a missing command", async () => {
  const dir = tmp();
  const exe = fakePython(dir, "setTimeout(() => {}, 60000);");
  HindsightPlugin.BUDGET_MS.edit = 300;
  const t0 = Date.now();
  assert.equal(await runHook({ ...CONFIG, argv: [exe] }, "edit", {}, dir), "");
  assert.ok(Date.now() - t0 < 5000);
  HindsightPlugin.BUDGET_MS.edit = 5000;
  assert.equal(await runHook({ ...CONFIG, argv: [path.join(dir, "missing")] }, "edit", {},
    dir), "");
  const failing = fakePython(dir, "process.stdout.write('{}'); process.exit(3);");
  assert.equal(await runHook({ ...CONFIG, argv: [failing] }, "edit", {}, dir), "");
});

test("end to end: the real hooks brief, and write the session back", async () => {
  const py = process.env.HINDSIGHT_TEST_PYTHON || "python3";
  const probe = spawnSync(py, ["-c", "import hindsight"], { encoding: "utf-8" });
  assert.equal(probe.status, 0, `${py} cannot import hindsight: ${probe.stderr}`);
  const dir = tmp();
  const repo = path.join(dir, "shop");
  fs.mkdirSync(repo);
  const env = { ...process.env, HINDSIGHT_HOME: path.join(dir, "hs"),
    HINDSIGHT_EMBEDDER: "hashing", HINDSIGHT_SEED: "0", HINDSIGHT_HOOK_SYNC: "1",
    HINDSIGHT_DIAG_FILE: path.join(dir, "diag.jsonl"), GIT_AUTHOR_NAME: "t",
    GIT_AUTHOR_EMAIL: "t@e", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@e" };
  const sh = (cmd, args) => {
    const r = spawnSync(cmd, args, { cwd: repo, env, encoding: "utf-8" });
    assert.equal(r.status, 0, `${cmd} ${args.join(" ")}: ${r.stderr}`);
    return r.stdout;
  };
  sh("git", ["init", "-q"]);
  fs.writeFileSync(path.join(repo, "pay.py"), "def charge():\n    return 1\n");
  sh("git", ["add", "."]);
  sh("git", ["commit", "-qm", "add payments"]);
  const convention = "Always use pathlib, never os.path, in this repo.";
  sh(py, ["-m", "hindsight", "retain", convention, "--kind", "convention"]);

  const config = { argv: [py, "-P", "-m", "hindsight"], env: { HINDSIGHT_HOME: env.HINDSIGHT_HOME,
    HINDSIGHT_EMBEDDER: "hashing", HINDSIGHT_SEED: "0", HINDSIGHT_HOOK_SYNC: "1",
    HINDSIGHT_DIAG_FILE: env.HINDSIGHT_DIAG_FILE }, harness: "opencode" };
  const messages = [
    { info: { id: "msg_1", sessionID: "ses_e2e", role: "user", time: { created: 1764417600000 } },
      parts: [{ type: "text", text: "We decided to keep refunds idempotent." }] },
    { info: { id: "msg_2", sessionID: "ses_e2e", role: "assistant",
      time: { created: 1764417601000, completed: 1764417602000 } },
    parts: [{ type: "reasoning", text: "THINKING-TEXT" },
      { type: "text", text: "Understood." },
      { type: "tool", tool: "bash", state: { status: "completed", input: { command: "pytest -q" },
        output: "TOOL-OUTPUT-BODY" } }] }];
  const client = { session: { messages: async () => ({ data: messages }) } };
  const hooks = createHooks(config, { directory: repo, client });
  await hooks["chat.message"]({ sessionID: "ses_e2e" }, { parts: [
    { type: "text", text: "pathlib in this repo?" }] });
  const out = { system: [] };
  await hooks["experimental.chat.system.transform"]({ sessionID: "ses_e2e" }, out);
  assert.equal(out.system.length, 1); // the briefing; its memory is not recalled twice
  assert.ok(out.system[0].startsWith('<hindsight-memory kind="session-briefing">'));
  assert.ok(out.system[0].includes(convention));

  await hooks.event({ event: { type: "session.idle", properties: { sessionID: "ses_e2e" } } });
  const rows = JSON.parse(sh(py, ["-m", "hindsight", "memories", "--json"]));
  const texts = (rows.memories ?? rows).map((m) => m.text);
  assert.ok(texts.includes("We decided to keep refunds idempotent."), texts.join(" | "));
  assert.ok(texts.includes("User: We decided to keep refunds idempotent.\nAssistant: "
    + "Understood.\nActions: bash: pytest -q"), texts.join(" | "));
  assert.ok(!texts.some((t) => t.includes("TOOL-OUTPUT-BODY") || t.includes("THINKING")));
});
