// The three packages that `npm install` cannot take (a GitHub dependency in
// @chainlink/contracts; hardhat pulled in by the other two) come in as plain
// tarballs with `npm pack`, checked against pinned integrity hashes and
// unpacked under the ignored vendor/ folder.
//   node lib/vendor.mjs        fetch whatever is missing, print the paths
import { createHash } from "node:crypto";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const VENDOR_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "..", "vendor");

// Integrity as the registry publishes it (`npm view NAME@VER dist.integrity`).
export const VENDORED = {
  "@chainlink/contracts": {
    version: "1.5.0",
    integrity: "sha512-1fGJwjvivqAxvVOTqZUEXGR54CATtg0vjcXgSIk4Cfoad2nUhSG/qaWHXjLg1CkNTeOoteoxGQcpP/HiA5HsUA==",
  },
  "sphere-mezo-solidity-files": {
    version: "1.2.0",
    integrity: "sha512-slDQvcqBgUQKzVLo5uHVKH3E367t07TPXNcHzxuSXaH/1iVWWDPnmXD6Z+BlvcI+QPcOTq/6PSpqS+zu4krT/g==",
  },
  "@uniswap/swap-router-contracts": {
    version: "1.3.1",
    integrity: "sha512-mh/YNbwKb7Mut96VuEtL+Z5bRe0xVIbjjiryn+iMMrK2sFKhR4duk/86mEz0UO5gSx4pQIw9G5276P5heY/7Rg==",
  },
};

function folderName(name) {
  const { version } = VENDORED[name];
  return `${name.replace("@", "").replace("/", "+")}@${version}`;
}

// Root of an unpacked vendored package (the tarball's `package/` folder).
export function vendoredDir(name) {
  if (!VENDORED[name]) throw new Error(`${name} is not a vendored package`);
  return join(VENDOR_DIR, folderName(name), "package");
}

function sha512(file) {
  return `sha512-${createHash("sha512").update(readFileSync(file)).digest("base64")}`;
}

// Fetches and unpacks one package unless an earlier run did (the stamp file
// is written last, so an interrupted unpack is redone).
export function ensureVendored(name) {
  const { version, integrity } = VENDORED[name];
  const root = join(VENDOR_DIR, folderName(name));
  const stamp = join(root, ".integrity");
  if (existsSync(stamp) && readFileSync(stamp, "utf8") === integrity) return { dir: join(root, "package"), fetched: false };

  mkdirSync(VENDOR_DIR, { recursive: true });
  const tmp = join(VENDOR_DIR, `.tmp-${folderName(name)}`);
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  const out = execFileSync(
    "npm",
    ["pack", `${name}@${version}`, "--json", "--ignore-scripts", "--pack-destination", tmp],
    { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] },
  );
  const [info] = JSON.parse(out);
  const tarball = join(tmp, info.filename);
  const actual = sha512(tarball);
  if (actual !== integrity) {
    throw new Error(`${name}@${version}: tarball integrity ${actual} does not match the pinned ${integrity}`);
  }
  execFileSync("tar", ["xzf", tarball, "-C", tmp]);
  rmSync(tarball);
  writeFileSync(join(tmp, ".integrity"), integrity);
  rmSync(root, { recursive: true, force: true });
  renameSync(tmp, root);
  return { dir: join(root, "package"), fetched: true };
}

export function ensureAllVendored() {
  const started = Date.now();
  const dirs = {};
  let fetched = 0;
  for (const name of Object.keys(VENDORED)) {
    const r = ensureVendored(name);
    dirs[name] = r.dir;
    if (r.fetched) fetched++;
  }
  return { dirs, fetched, ms: Date.now() - started };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const r = ensureAllVendored();
  process.stdout.write(`${JSON.stringify(r, null, 2)}\n`);
}
