// Stage: trading history. Swaps spread over time (so V3 TWAPs differ from
// spot and the Solidly/V2 cumulative prices move) with periodic arbitrage
// across the WETH/USDC venues, a block with several unrelated swaps on one
// pool, and two sandwiched blocks (V3 and V2) built with automine off:
// attacker buy, victim buy, attacker sell.
import { Interface, MaxUint256, getAddress } from "ethers";
import { loadWaffleArtifact, loadHardhatArtifact } from "./artifacts.mjs";
import { DEADLINE, PRICES_USD, findPool } from "./market.mjs";
import { prng } from "./chain.mjs";

const SWAP_ROUTER = new Interface(loadHardhatArtifact("@uniswap/v3-periphery", "artifacts/contracts/SwapRouter.sol/SwapRouter.json").abi);
const ROUTER02 = new Interface(loadWaffleArtifact("@uniswap/v2-periphery", "build/UniswapV2Router02.json").abi);
const ERC20_APPROVE = new Interface(["function approve(address,uint256) returns (bool)"]);
const SWAP_GAS = 600_000n; // explicit, so queued swaps need no estimate against stale state

// Builds swap calldata for each venue; `venue` objects come from build.mjs.
export class Swaps {
  constructor(chain, { v3, v2, aero }) {
    this.chain = chain;
    this.v3 = v3;
    this.v2 = v2;
    this.aero = aero;
    this.aeroRouter = new Interface(aero.router.iface.fragments);
  }

  routers() {
    return [this.v3.swapRouter.address, this.v2.router.address, this.aero.router.address];
  }

  async prepareTrader(signer, symbols) {
    for (const s of symbols) {
      for (const r of this.routers()) {
        await signer.sendTx({ to: this.chain.addr(s), data: ERC20_APPROVE.encodeFunctionData("approve", [r, MaxUint256]) }, `approve ${s}`);
      }
    }
  }

  // {to, data} for one exact-input swap of `amountIn` raw `tokenIn`.
  // `sqrtPriceLimitX96` (V3 only) stops the swap at that price.
  call(pool, tokenIn, amountIn, recipient, minOut = 0n, sqrtPriceLimitX96 = 0n) {
    const c = this.chain;
    const tokenOut = pool.token0 === tokenIn ? pool.token1 : pool.token0;
    if (pool.kind === "v3") {
      return {
        to: this.v3.swapRouter.address,
        data: SWAP_ROUTER.encodeFunctionData("exactInputSingle", [{
          tokenIn: c.addr(tokenIn), tokenOut: c.addr(tokenOut), fee: pool.fee, recipient,
          deadline: DEADLINE, amountIn, amountOutMinimum: minOut, sqrtPriceLimitX96,
        }]),
        tokenOut,
      };
    }
    if (pool.kind === "v2") {
      return {
        to: this.v2.router.address,
        data: ROUTER02.encodeFunctionData("swapExactTokensForTokens", [amountIn, minOut, [c.addr(tokenIn), c.addr(tokenOut)], recipient, DEADLINE]),
        tokenOut,
      };
    }
    return {
      to: this.aero.router.address,
      data: this.aeroRouter.encodeFunctionData("swapExactTokensForTokens", [
        amountIn, minOut,
        [{ from: c.addr(tokenIn), to: c.addr(tokenOut), stable: pool.stable, factory: this.aero.factory.address }],
        recipient, DEADLINE,
      ]),
      tokenOut,
    };
  }

  // Exact output of a swap at the current state (what it will get if it is
  // the next trade on that pool).
  async quote(pool, tokenIn, amountIn) {
    const c = this.chain;
    const tokenOut = pool.token0 === tokenIn ? pool.token1 : pool.token0;
    if (pool.kind === "v3") {
      const q = await this.v3.quoterV2.read("quoteExactInputSingle", {
        tokenIn: c.addr(tokenIn), tokenOut: c.addr(tokenOut), amountIn, fee: pool.fee, sqrtPriceLimitX96: 0,
      });
      return q.amountOut;
    }
    if (pool.kind === "v2") {
      const amounts = await this.v2.router.read("getAmountsOut", amountIn, [c.addr(tokenIn), c.addr(tokenOut)]);
      return amounts[1];
    }
    return pool.contract.read("getAmountOut", amountIn, c.addr(tokenIn));
  }

  async swap(signer, pool, tokenIn, amountIn, sqrtPriceLimitX96 = 0n) {
    const { to, data, tokenOut } = this.call(pool, tokenIn, amountIn, signer.address, 0n, sqrtPriceLimitX96);
    const receipt = await signer.sendTx({ to, data }, `swap on ${pool.name}`);
    return { receipt, tokenOut };
  }
}

function swapRecord(receipt, pool, trader, tokenIn, tokenOut, amountIn, role) {
  return {
    block: Number(BigInt(receipt.blockNumber)),
    tx: receipt.transactionHash,
    tx_index: Number(BigInt(receipt.transactionIndex)),
    venue: pool.kind,
    pool: pool.address,
    pool_name: pool.name,
    trader,
    token_in: tokenIn,
    token_out: tokenOut,
    amount_in: amountIn.toString(),
    ...(role ? { role } : {}),
  };
}

// Arbitrage: moves every other WETH/USDC venue to the main pool's price, as
// arbitrageurs would, so venues differ by fees and depth rather than by
// stale prices. V3 pools swap up to the target sqrt price (the router spends
// only what that takes); constant-product pools get the closed-form input
// (reserve' = sqrt(k * target), grossed up for the fee).
export async function alignVenues(chain, swaps, pools, arb) {
  const f = (kind, x) => findPool(pools, kind, "WETH", "USDC", x);
  const main = f("v3", 500);
  const { sqrtPriceX96: target } = await main.contract.read("slot0");
  const records = [];
  // Token1 per token0 in raw units, as sqrtPriceX96 encodes it; every
  // WETH/USDC venue orders the two tokens the same way (by address).
  const targetPrice = (Number(target) / 2 ** 96) ** 2;
  for (const pool of [f("v3", 100), f("v3", 3000), f("v3", 10000)]) {
    const { sqrtPriceX96 } = await pool.contract.read("slot0");
    if (sqrtPriceX96 === target) continue;
    // Price of token0 rises when token1 is sold into the pool.
    const tokenIn = target > sqrtPriceX96 ? pool.token1 : pool.token0;
    const budget = chain.units(tokenIn, 3_000_000 / PRICES_USD[tokenIn]);
    const { receipt, tokenOut } = await swaps.swap(arb, pool, tokenIn, budget, target);
    // The price limit stops the swap early: record what was actually spent.
    const spent = transferred(receipt, chain.addr(tokenIn), { from: arb.address });
    records.push(swapRecord(receipt, pool, arb.address, tokenIn, tokenOut, spent, "arbitrage"));
  }
  for (const [pool, feeBps] of [[f("v2"), 30], [f("aero", false), f("aero", false).fee_bps]]) {
    const r = await pool.contract.read("getReserves");
    const [r0, r1] = [Number(r[0]), Number(r[1])];
    const price = r1 / r0;
    if (Math.abs(price / targetPrice - 1) < 1e-5) continue;
    const k = r0 * r1;
    const gross = 1 / (1 - feeBps / 10_000);
    const [tokenIn, amount] = targetPrice > price
      ? [pool.token1, (Math.sqrt(k * targetPrice) - r1) * gross]
      : [pool.token0, (Math.sqrt(k / targetPrice) - r0) * gross];
    const amountIn = BigInt(Math.floor(amount));
    if (amountIn <= 0n) continue;
    const { receipt, tokenOut } = await swaps.swap(arb, pool, tokenIn, amountIn);
    records.push(swapRecord(receipt, pool, arb.address, tokenIn, tokenOut, amountIn, "arbitrage"));
  }
  return records;
}

// Ordinary trading over `steps` intervals of `stepSeconds`, from `start`.
// The main WETH/USDC pools get a net buy of WETH that strengthens in the last
// half hour, so the 30-minute TWAP lags spot; other pools trade both ways.
export async function tradeOverTime(chain, swaps, pools, { start, steps, stepSeconds, traders, arbitrageur, alignEvery }) {
  const rand = prng(8453);
  const records = [];
  const usd = (s, v) => chain.units(s, v / PRICES_USD[s]);
  const f = (kind, a, b, x) => findPool(pools, kind, a, b, x);
  const mainPool = f("v3", "WETH", "USDC", 500);
  const plan = [
    // [pool, every n steps, base token, USD size range, probability of buying base]
    [mainPool, 1, "WETH", [20_000, 120_000], 0.58],
    [f("v3", "WETH", "USDC", 3000), 1, "WETH", [5_000, 40_000], 0.55],
    [f("v3", "WETH", "USDC", 100), 3, "WETH", [2_000, 10_000], 0.5],
    [f("v3", "WETH", "USDC", 10000), 4, "WETH", [1_000, 5_000], 0.5],
    [f("v3", "WBTC", "WETH", 500), 2, "WBTC", [10_000, 80_000], 0.5],
    [f("v3", "WBTC", "USDC", 3000), 3, "WBTC", [5_000, 30_000], 0.5],
    [f("v3", "USDC", "USDT", 100), 3, "USDT", [10_000, 100_000], 0.5],
    [f("v3", "DAI", "USDC", 100), 3, "DAI", [10_000, 100_000], 0.5],
    [f("v3", "LINK", "WETH", 3000), 3, "LINK", [2_000, 15_000], 0.5],
    [f("v2", "WETH", "USDC"), 2, "WETH", [5_000, 50_000], 0.55],
    [f("v2", "WBTC", "WETH"), 4, "WBTC", [5_000, 20_000], 0.5],
    [f("aero", "WETH", "USDC", false), 2, "WETH", [5_000, 30_000], 0.55],
    [f("aero", "USDC", "DAI", true), 4, "DAI", [5_000, 50_000], 0.5],
  ];
  for (let i = 0; i < steps; i++) {
    await chain.setNextTimestamp(start + i * stepSeconds);
    const lastHalfHour = (steps - i) * stepSeconds <= 1800;
    for (const [pool, every, base, [lo, hi], pBuy] of plan) {
      if (i % every !== 0) continue;
      const quoteSym = pool.token0 === base ? pool.token1 : pool.token0;
      const isMain = pool === mainPool;
      const buy = (isMain && lastHalfHour) || rand() < pBuy;
      let size = lo + (hi - lo) * rand();
      if (isMain && lastHalfHour) size *= 2;
      const tokenIn = buy ? quoteSym : base;
      const amountIn = usd(tokenIn, Math.round(size));
      const trader = traders[Math.floor(rand() * traders.length)];
      const { receipt, tokenOut } = await swaps.swap(trader, pool, tokenIn, amountIn);
      records.push(swapRecord(receipt, pool, trader.address, tokenIn, tokenOut, amountIn));
    }
    if ((i + 1) % alignEvery === 0 || i === steps - 1) records.push(...(await alignVenues(chain, swaps, pools, arbitrageur)));
  }
  return records;
}

// Mines the given {signer, pool, tokenIn, amountIn, minOut?, role} swaps in one
// block, in submission order, with automine off. Returns one record each.
export async function oneBlock(chain, swaps, trades) {
  const rpc = chain.rpc;
  await rpc.request("evm_setAutomine", [false]);
  const hashes = [];
  try {
    for (const t of trades) {
      const { to, data } = swaps.call(t.pool, t.tokenIn, t.amountIn, t.signer.address, t.minOut ?? 0n);
      hashes.push(await t.signer.submit({ to, data, gas: SWAP_GAS }, `${t.role ?? "swap"} on ${t.pool.name}`));
    }
    await rpc.request("evm_mine", []);
  } finally {
    await rpc.request("evm_setAutomine", [true]);
  }
  const records = [];
  let block = null;
  for (const [i, h] of hashes.entries()) {
    const t = trades[i];
    const receipt = await rpc.waitReceipt(h, `${t.role ?? "swap"} on ${t.pool.name}`);
    const n = Number(BigInt(receipt.blockNumber));
    if (block === null) block = n;
    if (n !== block || Number(BigInt(receipt.transactionIndex)) !== i) {
      throw new Error(`one-block trades: tx ${i} landed at block ${n} index ${receipt.transactionIndex}, expected block ${block} index ${i}`);
    }
    const tokenOut = t.pool.token0 === t.tokenIn ? t.pool.token1 : t.pool.token0;
    records.push({ ...swapRecord(receipt, t.pool, t.signer.address, t.tokenIn, tokenOut, t.amountIn, t.role), receipt });
  }
  return { block, records };
}

// Amount of `token` that `receipt` moved from `from` or to `to` (ERC-20
// Transfer logs).
const TRANSFER = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef";
function transferred(receipt, token, { from, to }) {
  let sum = 0n;
  for (const l of receipt.logs) {
    if (getAddress(l.address) !== token || l.topics[0] !== TRANSFER || l.topics.length !== 3) continue;
    const [src, dst] = [getAddress(`0x${l.topics[1].slice(26)}`), getAddress(`0x${l.topics[2].slice(26)}`)];
    if ((from && src === from) || (to && dst === to)) sum += BigInt(l.data);
  }
  return sum;
}

// The victim's output if `frontIn` is swapped just before it, by simulating
// both in one eth_simulateV1 block on top of the current state.
async function victimOutAfterFront(chain, swaps, pool, quoteSym, attacker, frontIn, victimIn) {
  const front = swaps.call(pool, quoteSym, frontIn, attacker.address);
  const tokenOut = pool.token0 === quoteSym ? pool.token1 : pool.token0;
  const quoter = pool.kind === "v3" ? swaps.v3.quoterV2 : pool.kind === "v2" ? swaps.v2.router : pool.contract;
  const [fn, args] = pool.kind === "v3"
    ? ["quoteExactInputSingle", [{ tokenIn: chain.addr(quoteSym), tokenOut: chain.addr(tokenOut), amountIn: victimIn, fee: pool.fee, sqrtPriceLimitX96: 0 }]]
    : pool.kind === "v2"
      ? ["getAmountsOut", [victimIn, [chain.addr(quoteSym), chain.addr(tokenOut)]]]
      : ["getAmountOut", [victimIn, chain.addr(quoteSym)]];
  const [sim] = await chain.rpc.request("eth_simulateV1", [{
    blockStateCalls: [{ calls: [
      { from: attacker.address, to: front.to, data: front.data, gas: `0x${SWAP_GAS.toString(16)}` },
      { to: quoter.address, data: quoter.iface.encodeFunctionData(fn, args) },
    ] }],
    validation: false,
  }, "latest"]);
  const [f, q] = sim.calls;
  if (f.status !== "0x1" || q.status !== "0x1") return 0n;
  const out = quoter.iface.decodeFunctionResult(fn, q.returnData);
  return pool.kind === "v2" ? out[0][1] : out[0];
}

// A sandwich on `pool`: the attacker buys `base` with `quoteSym` just before
// the victim's buy of `victimIn`, then sells exactly what it got. The victim
// accepts `slippageBps` below its quote before the front-run; the front-run
// is sized (by bisection over simulations) to 98% of the most the victim's
// bound allows, as a searcher would size it.
export async function sandwich(chain, swaps, { pool, base, attacker, victim, victimIn, slippageBps }) {
  const quoteSym = pool.token0 === base ? pool.token1 : pool.token0;
  const victimQuote = await swaps.quote(pool, quoteSym, victimIn);
  const victimMin = (victimQuote * BigInt(10_000 - slippageBps)) / 10_000n;
  let lo = 0n;
  let hi = victimIn * 20n;
  if ((await victimOutAfterFront(chain, swaps, pool, quoteSym, attacker, hi, victimIn)) >= victimMin) {
    throw new Error(`sandwich on ${pool.name}: the victim's bound never binds`);
  }
  while (hi - lo > victimIn / 100_000n + 1n) {
    const mid = (lo + hi) / 2n;
    if ((await victimOutAfterFront(chain, swaps, pool, quoteSym, attacker, mid, victimIn)) >= victimMin) lo = mid;
    else hi = mid;
  }
  const frontMax = lo;
  const frontIn = (frontMax * 98n) / 100n;
  // The front-run is first in the block, so its current quote is exact.
  const frontOut = await swaps.quote(pool, quoteSym, frontIn);
  const { block, records } = await oneBlock(chain, swaps, [
    { signer: attacker, pool, tokenIn: quoteSym, amountIn: frontIn, role: "front-run" },
    { signer: victim, pool, tokenIn: quoteSym, amountIn: victimIn, minOut: victimMin, role: "victim" },
    { signer: attacker, pool, tokenIn: base, amountIn: frontOut, role: "back-run" },
  ]);
  const backOut = transferred(records[2].receipt, chain.addr(quoteSym), { to: attacker.address });
  const victimOut = transferred(records[1].receipt, chain.addr(base), { to: victim.address });
  if (backOut <= frontIn) throw new Error(`sandwich on ${pool.name}: attacker made no profit (${frontIn} in, ${backOut} out)`);
  for (const r of records) delete r.receipt;
  return {
    block,
    pool: pool.address,
    pool_name: pool.name,
    venue: pool.kind,
    attacker: attacker.address,
    victim: victim.address,
    txs: records.map((r) => r.tx),
    swaps: records,
    front_run_in: frontIn.toString(),
    front_run_max: frontMax.toString(),
    victim_quote_before: victimQuote.toString(),
    victim_min_out: victimMin.toString(),
    victim_out: victimOut.toString(),
    attacker_profit: { token: quoteSym, amount: (backOut - frontIn).toString() },
  };
}
