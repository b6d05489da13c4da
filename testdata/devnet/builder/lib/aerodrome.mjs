// Stage: a Solidly-style DEX, Aerodrome's basic (vAMM/sAMM) pools. The
// sources are BUSL-1.1: they are read from the vendored npm tarball and
// compiled at build time, never copied into the repository.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { getAddress } from "ethers";
import { compileJob } from "./compile.mjs";
import { packageDir } from "./artifacts.mjs";
import { deployArtifact } from "./deploy.mjs";
import { contractAt } from "./rpc.mjs";
import { VENDORED, vendoredDir } from "./vendor.mjs";
import { DEADLINE, sortPair, usdAmount } from "./market.mjs";

const SRC = "aerodrome/contracts/";

export function compileAerodrome() {
  const ozDir = packageDir("@openzeppelin/contracts");
  const ozVersion = JSON.parse(readFileSync(join(ozDir, "package.json"), "utf8")).version;
  return compileJob({
    name: "aerodrome",
    entries: ["Pool.sol", "factories/PoolFactory.sol", "Router.sol", "factories/FactoryRegistry.sol"].map((f) => SRC + f),
    contracts: {
      Pool: `${SRC}Pool.sol:Pool`,
      PoolFactory: `${SRC}factories/PoolFactory.sol:PoolFactory`,
      Router: `${SRC}Router.sol:Router`,
      FactoryRegistry: `${SRC}factories/FactoryRegistry.sol:FactoryRegistry`,
    },
    remappings: {
      "aerodrome/": join(vendoredDir("sphere-mezo-solidity-files"), "domains", "aerodrome"),
      "@openzeppelin/contracts/": ozDir,
    },
    // Aerodrome shipped for paris: the same EVM version.
    settings: { optimizer: { enabled: true, runs: 200 }, evmVersion: "paris" },
    cacheKey: [`sphere-mezo-solidity-files@${VENDORED["sphere-mezo-solidity-files"].version}`, `@openzeppelin/contracts@${ozVersion}`],
  });
}

// [tokenA, tokenB, stable, USD per side]
export const AERO_POOLS = [
  ["WETH", "USDC", false, 1_000_000],
  ["WBTC", "WETH", false, 300_000],
  ["USDC", "DAI", true, 1_000_000],
  ["USDC", "USDT", true, 500_000],
];

// Unused placeholder for the voter and the gauge/rewards factories: the
// basic pools only need them to be non-zero.
const PLACEHOLDER = "0x0000000000000000000000000000000000000001";

export async function deployAerodrome(chain, compiled) {
  const { rpc, deployer } = chain;
  const c = compiled.contracts;
  const poolImpl = await deployArtifact(rpc, deployer, c.Pool, { label: "Aerodrome Pool implementation" });
  const factory = await deployArtifact(rpc, deployer, c.PoolFactory, { args: [poolImpl.address], label: "Aerodrome PoolFactory" });
  const registry = await deployArtifact(rpc, deployer, c.FactoryRegistry, {
    args: [factory.address, PLACEHOLDER, PLACEHOLDER, PLACEHOLDER],
    label: "Aerodrome FactoryRegistry",
  });
  const router = await deployArtifact(rpc, deployer, c.Router, {
    args: ["0x0000000000000000000000000000000000000000", registry.address, factory.address, PLACEHOLDER, chain.addr("WETH")],
    label: "Aerodrome Router",
  });
  await chain.approveAll(deployer, router.address, [...new Set(AERO_POOLS.flatMap(([a, b]) => [a, b]))]);

  const pools = [];
  for (const [a, b, stable, usdPerSide] of AERO_POOLS) {
    await factory.send("createPool(address,address,bool)", chain.addr(a), chain.addr(b), stable);
    const amountA = usdAmount(chain, a, usdPerSide);
    const amountB = usdAmount(chain, b, usdPerSide);
    await chain.fund(a, deployer, amountA);
    await chain.fund(b, deployer, amountB);
    await router.send("addLiquidity", chain.addr(a), chain.addr(b), stable, amountA, amountB, 0, 0, deployer, DEADLINE);
    const address = getAddress(await factory.read("getPool(address,address,bool)", chain.addr(a), chain.addr(b), stable));
    const [t0, t1] = sortPair(chain, a, b);
    pools.push({
      name: `${stable ? "sAMM" : "vAMM"}-${t0}/${t1}`,
      address,
      token0: t0,
      token1: t1,
      stable,
      fee_bps: Number(await factory.read("getFee", address, stable)),
      contract: contractAt(rpc, address, c.Pool.abi, deployer),
    });
  }
  return { poolImpl, factory, registry, router, pools };
}
