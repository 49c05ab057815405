// hindsight for opencode and Kilo: briefs a session, recalls notes on a prompt, records the
// files the agent edits and writes the session back, by running
// `<python> -P -m hindsight hook <event> --harness <opencode|kilo>` with a JSON payload on
// stdin, as hindsight's hooks for the other agents do (src/hindsight/hooks/agents_more.py).
// Written by `hindsight install opencode` (or `kilo`); `hindsight uninstall` removes it.
//
// opencode's plugin API (packages/plugin/src/index.ts of anomalyco/opencode): hooks mutate
// their `output`; there is no session-start hook, so a session is briefed at its first
// `chat.message`, and the briefing and the prompt's notes go into the system prompt of each
// request through `experimental.chat.system.transform`. `session.idle` (after every turn)
// sends the session's finished messages for the write-back. Every failure is silent: the
// agent must never wait on, or break because of, hindsight.

import { spawn } from "node:child_process";

// the command and environment `hindsight install` writes (this one line is replaced)
const CONFIG = {"argv": ["python3", "-P", "-m", "hindsight"], "env": {}, "harness": "opencode"};

// milliseconds a hook may run: hindsight's own budget per event (hooks/runtime.py) + 1 s
const BUDGET_MS = {"session-start": 9000, "user-prompt-submit": 3000, "edit": 5000,
                   "stop": 26000};
const EDIT_TOOLS = new Set(["edit", "write", "multiedit"]);

/** Run `hook <event>` with `payload` on stdin; resolves to its stdout ("" on any failure or
 * after the event's budget, when the process is killed). */
function runHook(config, event, payload, cwd) {
  return new Promise((resolve) => {
    let out = "";
    let done = false;
    let child;
    const finish = (value) => {
      if (!done) {
        done = true;
        clearTimeout(timer);
        resolve(value);
      }
    };
    const timer = setTimeout(() => {
      try { child?.kill("SIGKILL"); } catch { /* gone already */ }
      finish("");
    }, BUDGET_MS[event] ?? 10000);
    try {
      child = spawn(config.argv[0], [...config.argv.slice(1), "hook", event, "--harness",
        config.harness], { cwd, env: { ...process.env, ...config.env },
        stdio: ["pipe", "pipe", "ignore"] });
    } catch {
      finish("");
      return;
    }
    child.on("error", () => finish(""));
    child.stdout.on("data", (chunk) => { out += chunk; });
    child.on("close", (code) => finish(code === 0 ? out : ""));
    child.stdin.on("error", () => { /* the hook stopped reading */ });
    child.stdin.end(JSON.stringify(payload));
  });
}

/** The text hindsight answered for the model (`{"additional_context": …}`), else "". */
function contextOf(stdout) {
  try {
    const obj = JSON.parse(stdout);
    return typeof obj?.additional_context === "string" ? obj.additional_context : "";
  } catch {
    return "";
  }
}

/** The prompt a user message holds: its text parts, not the synthetic or ignored ones. */
function promptOf(parts) {
  return (Array.isArray(parts) ? parts : [])
    .filter((p) => p && p.type === "text" && typeof p.text === "string" && !p.synthetic
      && !p.ignored)
    .map((p) => p.text).join("\n").trim();
}

/** The plugin's hooks for one opencode instance (`input`: {client, directory, worktree…});
 * `run` stands in for runHook in tests. */
function createHooks(config, input, run = runHook) {
  const directory = input?.directory || input?.worktree || process.cwd();
  const sessions = new Map(); // session id -> {brief, recall, sent}
  let current = "";
  const state = (id) => {
    if (!sessions.has(id)) sessions.set(id, { brief: null, recall: "", sent: new Set() });
    return sessions.get(id);
  };
  const call = (event, payload) => run(config, event, { cwd: directory, ...payload },
    directory);
  return {
    "chat.message": async (inp, out) => {
      const id = inp?.sessionID;
      if (typeof id !== "string" || !id) return;
      current = id;
      const s = state(id);
      if (s.brief === null) {
        s.brief = contextOf(await call("session-start", { session_id: id,
          source: "startup" }));
      }
      const prompt = promptOf(out?.parts);
      s.recall = prompt ? contextOf(await call("user-prompt-submit", { session_id: id,
        prompt })) : "";
    },
    "experimental.chat.system.transform": async (inp, out) => {
      const s = sessions.get(inp?.sessionID || current);
      if (!s || !Array.isArray(out?.system)) return;
      for (const text of [s.brief, s.recall]) if (text) out.system.push(text);
    },
    "tool.execute.after": async (inp, out) => {
      if (!EDIT_TOOLS.has(inp?.tool)) return;
      const file = inp?.args?.filePath ?? out?.metadata?.filePath ?? out?.metadata?.filepath;
      if (typeof file !== "string" || !file) return;
      await call("edit", { session_id: inp.sessionID || current, file_path: file });
    },
    event: async ({ event }) => {
      if (event?.type !== "session.idle") return;
      const id = event.properties?.sessionID;
      if (typeof id !== "string" || !id || !input?.client?.session?.messages) return;
      let res;
      try {
        res = await input.client.session.messages({ path: { id } });
      } catch {
        return;
      }
      const list = Array.isArray(res) ? res : Array.isArray(res?.data) ? res.data : [];
      const s = state(id);
      const fresh = list.filter((m) => typeof m?.info?.id === "string" && !s.sent.has(m.info.id)
        && (m.info.role !== "assistant" || m.info.time?.completed));
      if (!fresh.length) return;
      if (await call("stop", { session_id: id, messages: fresh })) {
        for (const m of fresh) s.sent.add(m.info.id);
      }
    },
  };
}

// opencode loads every exported function as a plugin: this is the only export; the parts
// above hang on it for the tests (tests/js/opencode_plugin.test.mjs).
export const HindsightPlugin = async (input) => createHooks(CONFIG, input);
Object.assign(HindsightPlugin, { createHooks, runHook, contextOf, promptOf, CONFIG,
  BUDGET_MS });
