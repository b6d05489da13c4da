#!/usr/bin/env node
// Algebra Integral (Camelot V4's protocol, Integral 1.2) on a running devnet, for the tests
// that prove the adapter's Algebra keying on Algebra's own bytecode (issue 37). Not part of the
// committed state: a test runs it on its own anvil, so the recorded blocks stay where they are.
//
// Everything deployed is shipped compiled in `@cryptoalgebra/integral-core` 1.2.10 (the
// AlgebraPoolDeployer, the AlgebraFactory, and the test contract TestAlgebraCallee, which pays
// a pool's mint and swap callbacks by transferFrom of its caller) and `@cryptoalgebra/integral-periphery` 1.2.4 (QuoterV2, whose pool-address
// derivation uses the init-code hash of the core package's pool). The deployer and the factory
// name each other in their constructors, so the factory's address is computed from the
// deployer account's nonce first.
//
// One pool per pair, for every pair the devnet's Uniswap V3 pools have, initialized at the
// price of the pair's deepest V3 pool, with a fee set by the factory's owner (not the default,
// so a read of the default would show) and liquidity over three ranges.
//
//   node algebra-devnet.mjs --rpc URL --addresses addresses.json
// Prints {"factory", "pool_deployer", "quoter_v2", "callee", "pools": [{name,
// address, token0, token1, fee, tick_spacing, positions: [{tick_lower, tick_upper,
// liquidity}]}]} on stdout.
import { createRequire } from "node:module";
import { parseArgs } from "node:util";
import { getAddress, getCreateAddress, parseUnits, MaxUint256 } from "ethers";
import { deployArtifact } from "./lib/deploy.mjs";
import { Rpc, contractAt } from "./lib/rpc.mjs";
import { ERC20_ABI } from "./lib/tokens.mjs";

const require = createRequire(import.meta.url);
const CORE = "@cryptoalgebra/integral-core";
const PERIPHERY = "@cryptoalgebra/integral-periphery";

const deploy = (rpc, from, art, args, label) => deployArtifact(rpc, from, art, { args, label });

const POOL_ABI = [
  "function initialize(uint160 initialPrice)",
  "function setFee(uint16 newFee)",
  "function tickSpacing() view returns (int24)",
];
const V3_POOL_ABI = [
  "function slot0() view returns (uint160, int24, uint16, uint16, uint16, uint8, bool)",
  "function liquidity() view returns (uint128)",
];

// Fees (hundredths of a bip) the owner sets: stable pairs cheaper than volatile ones.
const FEES = { stable: 250, volatile: 400 };
const STABLE = new Set(["USDC", "USDT", "DAI"]);

async function main() {
  const { values } = parseArgs({ options: { rpc: { type: "string" }, addresses: { type: "string" } } });
  if (!values.rpc || !values.addresses) throw new Error("usage: --rpc URL --addresses addresses.json");
  const rpc = new Rpc(values.rpc);
  const addresses = JSON.parse((await import("node:fs")).readFileSync(values.addresses, "utf8"));
  const from = getAddress(addresses.deployer.address);
  const token = (symbol) => getAddress(addresses.tokens[symbol].address);
  // The packages export only their `artifacts/*` (lib/artifacts.mjs resolves package.json).
  const art = (pkg, path) => require(`${pkg}/artifacts/contracts/${path}`);

  const nonce = Number(BigInt(await rpc.request("eth_getTransactionCount", [from, "latest"])));
  const factoryAddress = getCreateAddress({ from, nonce: nonce + 1 });
  const poolDeployer = await deploy(
    rpc,
    from,
    art(CORE, "AlgebraPoolDeployer.sol/AlgebraPoolDeployer.json"),
    [factoryAddress],
    "AlgebraPoolDeployer",
  );
  const factory = await deploy(
    rpc,
    from,
    art(CORE, "AlgebraFactory.sol/AlgebraFactory.json"),
    [poolDeployer.address],
    "AlgebraFactory",
  );
  if (factory.address !== factoryAddress) {
    throw new Error(`factory at ${factory.address}, the pool deployer names ${factoryAddress}`);
  }
  const quoter = await deploy(
    rpc,
    from,
    art(PERIPHERY, "lens/QuoterV2.sol/QuoterV2.json"),
    [factory.address, token("WETH"), poolDeployer.address],
    "QuoterV2",
  );
  const callee = await deploy(rpc, from, art(CORE, "test/TestAlgebraCallee.sol/TestAlgebraCallee.json"), [], "TestAlgebraCallee");

  // Tokens for the positions and the tests' swaps, paid from the deployer through the
  // callee's transferFrom.
  await rpc.request("anvil_setBalance", [from, `0x${(10n ** 24n).toString(16)}`]);
  for (const symbol of Object.keys(addresses.tokens)) {
    const erc20 = contractAt(rpc, token(symbol), ERC20_ABI, from);
    const decimals = Number(addresses.tokens[symbol].decimals);
    if (symbol === "WETH") {
      await erc20.sendWith({ value: parseUnits("100000", 18) }, "deposit");
    } else {
      await erc20.send("mint", from, parseUnits("1000000000", decimals));
    }
    await erc20.send("approve", callee.address, MaxUint256);
  }

  // The V3 pairs, each at the price of its deepest V3 pool.
  const byPair = new Map();
  for (const p of addresses.pools.uniswap_v3) {
    const key = `${p.token0}/${p.token1}`;
    const v3 = contractAt(rpc, getAddress(p.address), V3_POOL_ABI, from);
    const liquidity = BigInt(await v3.read("liquidity"));
    const seen = byPair.get(key);
    if (!seen || liquidity > seen.liquidity) {
      const slot0 = await v3.read("slot0");
      byPair.set(key, { p, liquidity, sqrtPrice: BigInt(slot0[0]), tick: Number(slot0[1]) });
    }
  }
  const pools = [];
  for (const [name, { p, liquidity, sqrtPrice, tick }] of byPair) {
    const [t0, t1] = [getAddress(p.token0_address), getAddress(p.token1_address)];
    await factory.sendWith({ gas: 12_000_000 }, "createPool", t0, t1, "0x");
    const poolAddress = getAddress(await factory.read("poolByPair", t0, t1));
    const pool = contractAt(rpc, poolAddress, POOL_ABI, from);
    await pool.send("initialize", sqrtPrice);
    const fee = STABLE.has(p.token0) && STABLE.has(p.token1) ? FEES.stable : FEES.volatile;
    await pool.send("setFee", fee);
    const spacing = Number(await pool.read("tickSpacing"));
    const align = (t) => Math.floor(t / spacing) * spacing;
    // A third of the V3 pool's in-range liquidity near the price, a tenth over ±40 spacings,
    // a hundredth over the whole range: comparable depth, so the ranking across kinds is real.
    const positions = [
      { tick_lower: align(-887272) + spacing, tick_upper: align(887272), liquidity: liquidity / 100n },
      { tick_lower: align(tick - 40 * spacing), tick_upper: align(tick + 40 * spacing), liquidity: liquidity / 10n },
      { tick_lower: align(tick - 4 * spacing), tick_upper: align(tick + 6 * spacing), liquidity: liquidity / 3n },
    ];
    for (const position of positions) {
      await callee.sendWith(
        { gas: 3_000_000 },
        "mint",
        poolAddress,
        from,
        position.tick_lower,
        position.tick_upper,
        position.liquidity,
      );
    }
    pools.push({
      name,
      address: poolAddress,
      token0: t0,
      token1: t1,
      fee,
      tick_spacing: spacing,
      positions: positions.map((x) => ({ ...x, liquidity: x.liquidity.toString() })),
    });
  }
  process.stdout.write(
    `${JSON.stringify({
      factory: factory.address,
      pool_deployer: poolDeployer.address,
      quoter_v2: quoter.address,
      callee: callee.address,
      pools,
    })}\n`,
  );
}

main().catch((err) => {
  process.stderr.write(`${err.stack ?? err}\n`);
  process.exit(1);
});
