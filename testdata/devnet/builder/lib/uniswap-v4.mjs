// Stage: Uniswap V4 from the published foundry artifacts of @uniswap/v4-core
// (PoolManager, and its test routers for liquidity) and @uniswap/v4-periphery
// (StateView, V4Quoter). Pools sit beside the V3 ones for the same pairs, at
// the V3 pool's price when the stage runs: native ETH pools (currency0 =
// address(0)) and WETH pools, several fee/tickSpacing pairs, a dynamic-fee
// pool whose hook sets the LP fee (v4-core's DynamicFeesTestHook), a pool
// whose hook overrides the fee of every swap (DynamicReturnFeeTestHook: its
// swaps differ from the pool's stored fee, so only the quoter is right), and a
// dust trap (50 % fee, a few dollars of liquidity).
//
// A hook's permissions are the low 14 bits of its address (v4-core
// Hooks.sol), so the test hooks' runtime code is placed with anvil_setCode at
// addresses whose bits are the flags they need; they have no constructor and
// keep the manager and fee in storage, set by calls afterwards.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { AbiCoder, Interface, MaxUint256, ZeroAddress, getAddress, keccak256 } from "ethers";
import { packageDir } from "./artifacts.mjs";
import { deployArtifact } from "./deploy.mjs";
import { contractAt } from "./rpc.mjs";
import { setCode } from "./canonical.mjs";
import { PRICES_USD } from "./market.mjs";

const MAX_TICK = 887272;
const Q96 = 2n ** 96n;

// v4-core LPFeeLibrary: DYNAMIC_FEE_FLAG; Hooks.sol permission bits.
export const DYNAMIC_FEE = 0x800000;
const AFTER_INITIALIZE = 1 << 12;
const BEFORE_SWAP = 1 << 7;

// Where the test hooks live: any high bits, the permission flags below.
const hookAddress = (flags) => getAddress(`0x4444${"0".repeat(32)}${flags.toString(16).padStart(4, "0")}`);
export const HOOK_ADDRESSES = {
  dynamic_fee: hookAddress(AFTER_INITIALIZE | BEFORE_SWAP),
  fee_override: hookAddress(BEFORE_SWAP),
};

// Foundry artifact: {abi, bytecode: {object}, deployedBytecode: {object}}.
function foundry(pkg, dir, rel) {
  const file = join(packageDir(pkg), dir, rel);
  const art = JSON.parse(readFileSync(file, "utf8"));
  if (!art.abi || typeof art.bytecode?.object !== "string") throw new Error(`${file} is not a foundry artifact`);
  return { abi: art.abi, bytecode: art.bytecode.object, deployedBytecode: art.deployedBytecode.object, linkReferences: {} };
}
const core = (name) => foundry("@uniswap/v4-core", "out", `${name}.sol/${name}.json`);
const periphery = (name) => foundry("@uniswap/v4-periphery", "foundry-out", `${name}.sol/${name}.json`);

export const V4_QUOTER_ABI = periphery("V4Quoter").abi;
export const STATE_VIEW_ABI = periphery("StateView").abi;

// [name, currency0 token or "ETH", other token, fee, tickSpacing, USD of
// liquidity, hook]. "ETH" is native ether; its price is the V3 WETH pool's.
export const V4_POOLS = [
  ["ETH/USDC/500/10", "ETH", "USDC", 500, 10, 8_000_000, null],
  ["ETH/USDC/3000/60", "ETH", "USDC", 3000, 60, 1_000_000, null],
  ["WETH/USDC/500/10", "WETH", "USDC", 500, 10, 1_000_000, null],
  ["WETH/USDC/100/1", "WETH", "USDC", 100, 1, 300_000, null],
  ["ETH/USDC/dust-trap/500000/10", "ETH", "USDC", 500_000, 10, 3, null],
  ["ETH/USDC/dynamic/60", "ETH", "USDC", DYNAMIC_FEE, 60, 500_000, "dynamic_fee"],
  ["ETH/USDC/hooked/60", "ETH", "USDC", DYNAMIC_FEE, 60, 500_000, "fee_override"],
  ["ETH/WBTC/3000/60", "ETH", "WBTC", 3000, 60, 1_000_000, null],
  ["USDC/USDT/100/1", "USDC", "USDT", 100, 1, 500_000, null],
];

// The fee each test hook charges, hundredths of a bip.
export const HOOK_FEES = { dynamic_fee: 2500, fee_override: 7000 };

// Liquidity layers around the price: [lower, upper] ticks from the current
// tick (null = full range) and the share of the pool's USD.
const LAYERS = [
  [null, null, 0.2],
  [-3000, 3000, 0.2],
  [-500, 500, 0.3],
  [-50, 50, 0.3],
];

const sqrtAtTick = (t) => Math.pow(1.0001, t / 2);

function amountsFor(L, s, tl, tu) {
  const sa = sqrtAtTick(tl);
  const sb = sqrtAtTick(tu);
  if (s <= sa) return [(L * (sb - sa)) / (sa * sb), 0];
  if (s >= sb) return [0, L * (sb - sa)];
  return [(L * (sb - s)) / (s * sb), L * (s - sa)];
}

// keccak256(abi.encode(PoolKey)): PoolIdLibrary.toId.
export function poolId(key) {
  return keccak256(AbiCoder.defaultAbiCoder().encode(
    ["address", "address", "uint24", "int24", "address"],
    [key.currency0, key.currency1, key.fee, key.tickSpacing, key.hooks],
  ));
}

export async function deployUniswapV4(chain) {
  const { rpc, deployer } = chain;
  const poolManager = await deployArtifact(rpc, deployer, core("PoolManager"), { args: [deployer], label: "PoolManager" });
  const stateView = await deployArtifact(rpc, deployer, periphery("StateView"), { args: [poolManager.address], label: "StateView" });
  const quoter = await deployArtifact(rpc, deployer, periphery("V4Quoter"), { args: [poolManager.address], label: "V4Quoter" });
  const liquidityRouter = await deployArtifact(rpc, deployer, core("PoolModifyLiquidityTest"), { args: [poolManager.address], label: "PoolModifyLiquidityTest" });
  const swapRouter = await deployArtifact(rpc, deployer, core("PoolSwapTest"), { args: [poolManager.address], label: "PoolSwapTest" });
  const hooks = {};
  for (const [role, address] of Object.entries(HOOK_ADDRESSES)) {
    const art = core(role === "dynamic_fee" ? "DynamicFeesTestHook" : "DynamicReturnFeeTestHook");
    await setCode(rpc, address, art.deployedBytecode);
    const hook = contractAt(rpc, address, art.abi, deployer);
    await hook.send("setManager", poolManager.address);
    await hook.send("setFee", HOOK_FEES[role]);
    hooks[role] = { address, contract: hook, artifact: role === "dynamic_fee" ? "DynamicFeesTestHook" : "DynamicReturnFeeTestHook" };
  }
  return { poolManager, stateView, quoter, liquidityRouter, swapRouter, hooks };
}

// `reference(tokenA, tokenB)` gives the V3 pool of the pair whose price the
// V4 pool starts at: {token0, contract} with slot0.
export async function createV4Pools(chain, v4, reference) {
  const { deployer } = chain;
  const symbols = [...new Set(V4_POOLS.flatMap(([, a, b]) => [a, b]).filter((s) => s !== "ETH"))];
  await chain.approveAll(deployer, v4.liquidityRouter.address, symbols);
  const pools = [];
  for (const [name, a, b, fee, tickSpacing, usd, hookRole] of V4_POOLS) {
    const addrOf = (s) => (s === "ETH" ? ZeroAddress : chain.addr(s));
    const [c0, c1] = BigInt(addrOf(a)) < BigInt(addrOf(b)) ? [a, b] : [b, a];
    const key = {
      currency0: addrOf(c0),
      currency1: addrOf(c1),
      fee,
      tickSpacing,
      hooks: hookRole ? v4.hooks[hookRole].address : ZeroAddress,
    };
    // The V3 pool's sqrt price, turned round when its token0 is not currency0.
    const erc = (s) => (s === "ETH" ? "WETH" : s);
    const v3 = reference(erc(c0), erc(c1));
    const { sqrtPriceX96: v3Sqrt } = await v3.contract.read("slot0");
    const sqrtPriceX96 = v3.token0 === erc(c0) ? BigInt(v3Sqrt) : (Q96 * Q96) / BigInt(v3Sqrt);
    await v4.poolManager.send("initialize", key, sqrtPriceX96);

    const s = Number(sqrtPriceX96) / 2 ** 96;
    const price = s * s; // raw currency1 per raw currency0
    const tick = Math.floor(Math.log(price) / Math.log(1.0001));
    const usdPerRaw1 = PRICES_USD[erc(c1)] / 10 ** chain.decimals[erc(c1)];
    const positions = [];
    for (const [lo, hi, share] of LAYERS) {
      const tl = lo === null ? Math.ceil(-MAX_TICK / tickSpacing) * tickSpacing : Math.floor((tick + lo) / tickSpacing) * tickSpacing;
      let tu = hi === null ? Math.floor(MAX_TICK / tickSpacing) * tickSpacing : Math.ceil((tick + hi) / tickSpacing) * tickSpacing;
      if (tu <= tl) tu = tl + tickSpacing;
      const [a0, a1] = amountsFor(1, s, tl, tu);
      const L = (usd * share) / ((a0 * price + a1) * usdPerRaw1);
      const liquidityDelta = BigInt(Math.floor(L));
      const [x0, x1] = amountsFor(Number(liquidityDelta), s, tl, tu);
      const need = (x) => BigInt(Math.ceil(x * 1.001)) + 10n;
      if (c0 !== "ETH") await chain.fund(c0, deployer, need(x0));
      await chain.fund(c1, deployer, need(x1));
      const params = { tickLower: tl, tickUpper: tu, liquidityDelta, salt: `0x${"00".repeat(32)}` };
      // The router refunds the ether it did not settle.
      await v4.liquidityRouter.sendWith(
        { value: c0 === "ETH" ? need(x0) : 0n },
        "modifyLiquidity((address,address,uint24,int24,address),(int24,int24,int256,bytes32),bytes)",
        key, params, "0x",
      );
      positions.push({ tick_lower: tl, tick_upper: tu, liquidity: liquidityDelta.toString() });
    }
    pools.push({
      name,
      currency0: c0,
      currency1: c1,
      key,
      id: poolId(key),
      hook: hookRole,
      positions,
    });
  }
  return pools;
}

// v4-core TickMath: the price limits of a swap that may go as far as it takes.
const MIN_SQRT_PRICE = 4295128739n;
const MAX_SQRT_PRICE = 1461446703485210103287273052203988822378723970342n;
const SWAP_GAS = 600_000n; // explicit, so queued swaps need no estimate against stale state
const ERC20_APPROVE = new Interface(["function approve(address,uint256) returns (bool)"]);

// {to, data, value} of an exact-input swap through v4-core's PoolSwapTest, which
// settles from and pays out to the transaction's sender.
function swapCall(v4, pool, zeroForOne, amountIn) {
  const data = v4.swapRouter.iface.encodeFunctionData("swap", [
    pool.key,
    { zeroForOne, amountSpecified: -amountIn, sqrtPriceLimitX96: zeroForOne ? MIN_SQRT_PRICE + 1n : MAX_SQRT_PRICE - 1n },
    { takeClaims: false, settleUsingBurn: false },
    "0x",
  ]);
  const value = zeroForOne && pool.key.currency0 === ZeroAddress ? amountIn : 0n;
  return { to: v4.swapRouter.address, data, value };
}

// Swap history on the main native pool through PoolSwapTest: a few ordinary swaps, then a
// sandwich in one block (automine off): the attacker buys ETH with USDC, the victim buys ETH
// with USDC, the attacker sells exactly the ETH it bought. Every Swap log names PoolSwapTest
// as sender, so only the transactions' signers tell the traders apart.
export async function v4Activity(chain, v4, pools, { traders, attacker, victim }) {
  const main = pools.find((p) => p.name === "ETH/USDC/500/10");
  const usdc = chain.addr("USDC");
  for (const w of [...traders, attacker, victim]) {
    await w.sendTx({ to: usdc, data: ERC20_APPROVE.encodeFunctionData("approve", [v4.swapRouter.address, MaxUint256]) }, "approve USDC for PoolSwapTest");
  }
  const record = (receipt, signer, zeroForOne, amountIn, role) => ({
    block: Number(BigInt(receipt.blockNumber)),
    tx: receipt.transactionHash,
    tx_index: Number(BigInt(receipt.transactionIndex)),
    pool_id: main.id,
    pool_name: main.name,
    trader: signer.address,
    token_in: zeroForOne ? "ETH" : "USDC",
    amount_in: amountIn.toString(),
    ...(role ? { role } : {}),
  });
  const ordinary = [];
  for (const [signer, zeroForOne, amount] of [
    [traders[0], true, chain.units("WETH", "3")],
    [traders[1], false, chain.units("USDC", "12000")],
    [traders[2], true, chain.units("WETH", "1.5")],
  ]) {
    const receipt = await signer.sendTx(swapCall(v4, main, zeroForOne, amount), `swap on V4 ${main.name}`);
    ordinary.push(record(receipt, signer, zeroForOne, amount));
  }

  // Large enough against the pool's depth that the victim's move pays for the two fees.
  const frontIn = chain.units("USDC", "600000");
  const victimIn = chain.units("USDC", "1000000");
  // The front-run is first in the block, so the quote now is what it gets.
  const [frontOut] = await v4.quoter.read("quoteExactInputSingle", {
    poolKey: main.key, zeroForOne: false, exactAmount: frontIn, hookData: "0x",
  });
  const trades = [
    [attacker, false, frontIn, "front-run"],
    [victim, false, victimIn, "victim"],
    [attacker, true, frontOut, "back-run"],
  ];
  // The back-run's ether must be in the account when it is submitted, before the front-run
  // that pays it is mined.
  await chain.rpc.request("anvil_setBalance", [attacker.address, `0x${(10n ** 21n).toString(16)}`]);
  await chain.rpc.request("evm_setAutomine", [false]);
  const hashes = [];
  try {
    for (const [signer, zeroForOne, amount, role] of trades) {
      hashes.push(await signer.submit({ ...swapCall(v4, main, zeroForOne, amount), gas: SWAP_GAS }, `${role} on V4 ${main.name}`));
    }
    await chain.rpc.request("evm_mine", []);
  } finally {
    await chain.rpc.request("evm_setAutomine", [true]);
  }
  const swaps = [];
  for (const [i, hash] of hashes.entries()) {
    const [signer, zeroForOne, amount, role] = trades[i];
    const receipt = await chain.rpc.waitReceipt(hash, `${role} on V4 ${main.name}`);
    if (receipt.status !== "0x1") throw new Error(`V4 sandwich: ${role} reverted`);
    swaps.push(record(receipt, signer, zeroForOne, amount, role));
  }
  // What the back-run paid the attacker: USDC into its account (ERC-20 Transfer logs).
  const backReceipt = await chain.rpc.waitReceipt(hashes[2], "back-run");
  const TRANSFER = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef";
  const backOut = backReceipt.logs
    .filter((l) => getAddress(l.address) === usdc && l.topics[0] === TRANSFER && getAddress(`0x${l.topics[2].slice(26)}`) === attacker.address)
    .reduce((sum, l) => sum + BigInt(l.data), 0n);
  if (backOut <= frontIn) throw new Error(`V4 sandwich: no profit (${frontIn} in, ${backOut} out)`);
  const block = swaps[0].block;
  if (swaps.some((s, i) => s.block !== block || s.tx_index !== i)) throw new Error("V4 sandwich: not one block at indexes 0, 1, 2");
  // One more ordinary swap, so the sandwich is not the chain's tip.
  const tail = chain.units("USDC", "8000");
  ordinary.push(record(await traders[0].sendTx(swapCall(v4, main, false, tail), `swap on V4 ${main.name}`), traders[0], false, tail));
  return {
    ordinary_swaps: ordinary,
    sandwich: {
      block,
      pool_id: main.id,
      pool_name: main.name,
      attacker: attacker.address,
      victim: victim.address,
      txs: swaps.map((s) => s.tx),
      swaps,
      front_run_in: frontIn.toString(),
      front_run_out: frontOut.toString(),
      back_run_out: backOut.toString(),
      attacker_profit: { token: "USDC", amount: (backOut - frontIn).toString() },
    },
  };
}

// What the V4 contracts answer for a pool at the current block: StateView's
// slot0 and liquidity, and V4Quoter for each amount both ways.
export async function v4Checks(chain, v4, pool, amounts) {
  const slot0 = await v4.stateView.read("getSlot0", pool.id);
  const liquidity = await v4.stateView.read("getLiquidity", pool.id);
  const quotes = [];
  for (const [zeroForOne, exactAmount] of amounts) {
    let answer;
    try {
      const [amountOut, gasEstimate] = await v4.quoter.read("quoteExactInputSingle", {
        poolKey: pool.key, zeroForOne, exactAmount, hookData: "0x",
      });
      answer = { amount_out: amountOut.toString(), gas_estimate: gasEstimate.toString() };
    } catch (err) {
      answer = { reverted: String(err.shortMessage ?? err.message).slice(0, 200) };
    }
    quotes.push({ zero_for_one: zeroForOne, exact_amount: exactAmount.toString(), ...answer });
  }
  return {
    sqrt_price_x96: slot0[0].toString(),
    tick: Number(slot0[1]),
    protocol_fee: Number(slot0[2]),
    lp_fee: Number(slot0[3]),
    liquidity: liquidity.toString(),
    quotes,
  };
}
