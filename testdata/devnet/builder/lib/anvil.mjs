// Starts and stops the pinned anvil binary on loopback for build.mjs and
// verify-state.mjs. (selftest.mjs keeps its own copy: it predates this.)
import { spawn, execFileSync } from "node:child_process";
import { createServer } from "node:net";
import { join } from "node:path";
import { packageDir } from "./artifacts.mjs";

export function anvilBinary() {
  return join(packageDir("@foundry-rs/anvil-linux-amd64"), "bin", "anvil");
}

export function anvilVersion() {
  // First line: "anvil Version: 1.7.1"; the commit line pins the build exactly.
  const out = execFileSync(anvilBinary(), ["--version"], { encoding: "utf8" });
  const version = out.match(/Version:\s*(\S+)/)?.[1];
  const commit = out.match(/Commit SHA:\s*(\S+)/)?.[1];
  if (!version) throw new Error(`cannot parse anvil --version: ${out}`);
  return { version, commit };
}

// anvil --silent does not print the port it picked, so choose one first.
export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer().listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
    srv.on("error", reject);
  });
}

async function waitForRpc(url, child, ms) {
  const deadline = Date.now() + ms;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`anvil exited early (code ${child.exitCode})`);
    try {
      const r = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}',
      });
      if (r.ok) return;
    } catch {}
    if (Date.now() > deadline) throw new Error(`anvil did not answer at ${url} within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

// `args` are extra anvil flags (e.g. --timestamp, --dump-state). Returns
// {url, child, stop()}; stop() sends SIGINT, which is what makes anvil write
// --dump-state, and waits for the exit.
export async function startAnvil(args, { readyMs = 20_000 } = {}) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(
    anvilBinary(),
    // --max-persisted-states 0: anvil otherwise moves old states under ~/.foundry/anvil/tmp
    // and leaves them there (about 1.2 GB per build); the build reads the latest state only.
    ["--host", "127.0.0.1", "--port", String(port), "--chain-id", "8453", "--silent",
      "--max-persisted-states", "0", ...args],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  let stderr = "";
  child.stderr.on("data", (d) => { stderr += d; });
  try {
    await waitForRpc(url, child, readyMs);
  } catch (err) {
    child.kill("SIGKILL");
    throw new Error(`${err.message}${stderr ? `: ${stderr.trim()}` : ""}`);
  }
  const exited = new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
  // Never leave an orphaned anvil behind if this process exits early.
  const reap = () => { if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL"); };
  process.on("exit", reap);
  return {
    url,
    child,
    async stop(timeoutMs = 30_000) {
      if (child.exitCode !== null) return { code: child.exitCode };
      child.kill("SIGINT");
      const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
      const res = await exited;
      clearTimeout(timer);
      if (res.code !== 0) throw new Error(`anvil exited with ${res.code ?? res.signal} on SIGINT: ${stderr.trim()}`);
      return res;
    },
  };
}
