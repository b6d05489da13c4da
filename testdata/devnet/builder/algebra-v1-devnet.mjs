#!/usr/bin/env node
// Algebra V1 (QuickSwap V3's protocol on polygon) on a running devnet, for the tests that prove
// the adapter's Algebra V1 keying on Algebra's own bytecode (issue 37). Not part of the
// committed state: a test runs it on its own anvil, so the recorded blocks stay where they are.
//
// Everything deployed is shipped compiled in `@cryptoalgebra/core` 2.0.0 (AlgebraPoolDeployer,
// AlgebraFactory, which creates each pool's DataStorageOperator) and `@cryptoalgebra/periphery`
// 1.0.0 (Quoter, the one QuickSwap publishes: `quoteExactInputSingle(tokenIn, tokenOut,
// amountIn, limitSqrtPrice)` answering `(amountOut, fee)`; TickLens). Positions and the tests'
// swaps go through `@cryptoalgebra/integral-core`'s test contract TestAlgebraCallee, whose
// `mint`/`swap` calls and callbacks have V1's signatures.
//
// Two things in the packages need a hand, and the script does only that:
// - The pool deployer's and the factory's creation code (the pool's creation code and the
//   DataStorageOperator's are inside them) exceed EIP-170's 24,576 bytes: the anvil must run with
//   `--disable-code-size-limit` (test-devnet's `Devnet::load_without_code_size_limit`).
// - The factory and the periphery derive a pool's address from the init-code hash
//   `0x6ec6c9c8…94a4` (the factory gives that address to the pool's DataStorageOperator, whose
//   calls only it may make; the Quoter and the callbacks' check compute it), but the pool
//   bytecode the package ships hashes to another value, so the pool deployer's CREATE2 puts it
//   elsewhere, where it cannot even be initialized. Each pool the factory creates is therefore
//   moved to the address the factory and periphery compute: its runtime code (immutables
//   included: data-storage operator, factory, tokens) and its storage are copied there, the
//   factory's `poolByPair` is pointed at it both ways, and the stray copy is emptied. That is the
//   state the factory would have left had the hashes agreed.
//
// One pool per pair, for every pair the devnet's Uniswap V3 pools have, initialized at the
// price of the pair's deepest V3 pool, liquidity over three ranges, the factory's adaptive-fee
// configuration with a base fee per pool (stable pairs cheaper), and one dust swap so each
// pool's `globalState` holds a fee the adaptive formula computed. A later block's first swap
// pays a fee that depends on the time since then (the formula's volatility and volume): the
// tests send their swaps at the timestamp of the block they read.
//
//   node algebra-v1-devnet.mjs --rpc URL --addresses addresses.json
// Prints {"factory", "pool_deployer", "quoter", "tick_lens", "callee", "init_code_hash",
// "pools": [{name, address, moved_from, token0, token1, base_fee, global_state_fee,
// tick_spacing, positions: [{tick_lower, tick_upper, liquidity}]}]} on stdout.
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import {
  AbiCoder,
  MaxUint256,
  getAddress,
  getCreate2Address,
  getCreateAddress,
  keccak256,
  parseUnits,
  solidityPackedKeccak256,
  zeroPadValue,
} from "ethers";
import { setCode } from "./lib/canonical.mjs";
import { deployArtifact } from "./lib/deploy.mjs";
import { Rpc, contractAt } from "./lib/rpc.mjs";
import { ERC20_ABI } from "./lib/tokens.mjs";

const require = createRequire(import.meta.url);
const CORE = "@cryptoalgebra/core";
const PERIPHERY = "@cryptoalgebra/periphery";
const INTEGRAL_CORE = "@cryptoalgebra/integral-core";

// `PoolAddress.POOL_INIT_CODE_HASH` of @cryptoalgebra/periphery 1.0.0 (also in the factory's
// bytecode): where both expect a pair's pool.
const PERIPHERY_POOL_INIT_CODE_HASH = "0x6ec6c9c8091d160c0aa74b2b14ba9c1717e95093bd3ac085cee99a49aab294a4";

const deploy = (rpc, from, art, args, label) => deployArtifact(rpc, from, art, { args, label });

const POOL_ABI = [
  "function initialize(uint160 initialPrice)",
  "function globalState() view returns (uint160, int24, uint16, uint16, uint8, uint8, bool)",
  "function dataStorageOperator() view returns (address)",
  "function tickSpacing() view returns (int24)",
];
const V3_POOL_ABI = [
  "function slot0() view returns (uint160, int24, uint16, uint16, uint16, uint8, bool)",
  "function liquidity() view returns (uint128)",
];

// The factory's default adaptive-fee shape (AlgebraFactory's `baseFeeConfiguration` as
// deployed) with the base fee set per pool before it is created: stable pairs cheaper.
const BASE_FEES = { stable: 80, volatile: 300 };
const STABLE = new Set(["USDC", "USDT", "DAI"]);

// The pool's scalar storage (globalState, fee growth, liquidity, cooldown, incentive) lies in
// its first slots; the mappings are empty before initialize.
const POOL_SCALAR_SLOTS = 16;

async function main() {
  const { values } = parseArgs({ options: { rpc: { type: "string" }, addresses: { type: "string" } } });
  if (!values.rpc || !values.addresses) throw new Error("usage: --rpc URL --addresses addresses.json");
  const rpc = new Rpc(values.rpc);
  const addresses = JSON.parse(readFileSync(values.addresses, "utf8"));
  const from = getAddress(addresses.deployer.address);
  const token = (symbol) => getAddress(addresses.tokens[symbol].address);
  const art = (pkg, path) => require(`${pkg}/artifacts/contracts/${path}`);

  const poolDeployer = await deploy(rpc, from, art(CORE, "AlgebraPoolDeployer.sol/AlgebraPoolDeployer.json"), [], "AlgebraPoolDeployer");
  // The community-fee vault: nothing is collected in these tests.
  const factory = await deploy(
    rpc,
    from,
    art(CORE, "AlgebraFactory.sol/AlgebraFactory.json"),
    [poolDeployer.address, from],
    "AlgebraFactory",
  );
  await poolDeployer.send("setFactory", factory.address);
  const quoter = await deploy(
    rpc,
    from,
    art(PERIPHERY, "lens/Quoter.sol/Quoter.json"),
    [factory.address, token("WETH"), poolDeployer.address],
    "Quoter",
  );
  const tickLens = await deploy(rpc, from, art(PERIPHERY, "lens/TickLens.sol/TickLens.json"), [], "TickLens");
  const callee = await deploy(
    rpc,
    from,
    art(INTEGRAL_CORE, "test/TestAlgebraCallee.sol/TestAlgebraCallee.json"),
    [],
    "TestAlgebraCallee",
  );

  // Tokens for the positions and the tests' swaps, paid from the deployer through the callee.
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

  // The slot of `poolByPair` in the factory, found by where the first pool landed.
  let poolByPairSlot;
  const mappingSlot = (slot, a, b) =>
    solidityPackedKeccak256(["bytes32", "bytes32"], [zeroPadValue(b, 32), solidityPackedKeccak256(["bytes32", "uint256"], [zeroPadValue(a, 32), slot])]);
  const readWord = (at, slot) => rpc.request("eth_getStorageAt", [at, slot, "latest"]);

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
  const defaults = await factory.read("baseFeeConfiguration");
  const pools = [];
  for (const [name, { p, liquidity, sqrtPrice, tick }] of byPair) {
    const [t0, t1] = [getAddress(p.token0_address), getAddress(p.token1_address)];
    const baseFee = STABLE.has(p.token0) && STABLE.has(p.token1) ? BASE_FEES.stable : BASE_FEES.volatile;
    await factory.send("setBaseFeeConfiguration", ...[...defaults].slice(0, 8), baseFee);
    await factory.sendWith({ gas: 29_000_000 }, "createPool", t0, t1);
    const created = getAddress(await factory.read("poolByPair", t0, t1));
    const expected = getCreate2Address(
      poolDeployer.address,
      keccak256(AbiCoder.defaultAbiCoder().encode(["address", "address"], [t0, t1])),
      PERIPHERY_POOL_INIT_CODE_HASH,
    );
    const operator = getAddress(await contractAt(rpc, created, POOL_ABI, from).read("dataStorageOperator"));
    if (created === expected) throw new Error(`${name}: the shipped pool landed where the periphery expects it; nothing to move`);

    // Move the pool to where the factory and periphery expect it.
    await setCode(rpc, expected, await rpc.getCode(created));
    for (let slot = 0; slot < POOL_SCALAR_SLOTS; slot++) {
      const word = await readWord(created, `0x${slot.toString(16)}`);
      if (BigInt(word) !== 0n) await rpc.request("anvil_setStorageAt", [expected, `0x${slot.toString(16)}`, word]);
    }
    await rpc.request("anvil_setCode", [created, "0x"]);
    if (poolByPairSlot === undefined) {
      for (let slot = 0; slot < 32 && poolByPairSlot === undefined; slot++) {
        if (BigInt(await readWord(factory.address, mappingSlot(slot, t0, t1))) === BigInt(created)) poolByPairSlot = slot;
      }
      if (poolByPairSlot === undefined) throw new Error("poolByPair's slot not found in the factory");
    }
    for (const [a, b] of [[t0, t1], [t1, t0]]) {
      await rpc.request("anvil_setStorageAt", [factory.address, mappingSlot(poolByPairSlot, a, b), zeroPadValue(expected, 32)]);
    }
    if (getAddress(await factory.read("poolByPair", t1, t0)) !== expected) throw new Error(`${name}: poolByPair not moved`);

    const pool = contractAt(rpc, expected, POOL_ABI, from);
    if (getAddress(await pool.read("dataStorageOperator")) !== operator) throw new Error(`${name}: immutables lost`);
    await pool.send("initialize", sqrtPrice);
    const spacing = Number(await pool.read("tickSpacing"));
    const align = (t) => Math.floor(t / spacing) * spacing;
    // As for Algebra Integral: a third of the V3 pool's in-range liquidity near the price, a
    // tenth over ±40 spacings, a hundredth over the whole range.
    const positions = [
      { tick_lower: align(-887272) + spacing, tick_upper: align(887272), liquidity: liquidity / 100n },
      { tick_lower: align(tick - 40 * spacing), tick_upper: align(tick + 40 * spacing), liquidity: liquidity / 10n },
      { tick_lower: align(tick - 4 * spacing), tick_upper: align(tick + 6 * spacing), liquidity: liquidity / 3n },
    ];
    for (const position of positions) {
      await callee.sendWith({ gas: 3_000_000 }, "mint", expected, from, position.tick_lower, position.tick_upper, position.liquidity);
    }
    pools.push({
      name,
      address: expected,
      moved_from: created,
      token0: t0,
      token1: t1,
      base_fee: baseFee,
      tick_spacing: spacing,
      positions: positions.map((x) => ({ ...x, liquidity: x.liquidity.toString() })),
    });
  }
  // One dust swap per pool in a later block: a block's first swap writes a timepoint and sets
  // the adaptive fee, so `globalState` then holds a fee the formula computed (the pool's base
  // fee, with no volume before), not the constructor's `BASE_FEE`.
  for (const pool of pools) {
    // A new second: blocks within one second share a timestamp, and a timepoint (with the
    // fee) is written only at a new one.
    await rpc.request("evm_increaseTime", [1]);
    await rpc.request("evm_mine", []);
    const symbol = Object.keys(addresses.tokens).find((s) => token(s) === pool.token1);
    const dust = 10n ** BigInt(Math.max(0, Number(addresses.tokens[symbol].decimals) - 4));
    await callee.sendWith({ gas: 3_000_000 }, "swapExact1For0", pool.address, dust, from, 1461446703485210103287273052203988822378723970341n);
    pool.global_state_fee = Number((await contractAt(rpc, pool.address, POOL_ABI, from).read("globalState"))[2]);
  }
  process.stdout.write(
    `${JSON.stringify({
      factory: factory.address,
      pool_deployer: poolDeployer.address,
      quoter: quoter.address,
      tick_lens: tickLens.address,
      callee: callee.address,
      init_code_hash: PERIPHERY_POOL_INIT_CODE_HASH,
      pools,
    })}\n`,
  );
}

main().catch((err) => {
  process.stderr.write(`${err.stack ?? err}\n`);
  process.exit(1);
});
