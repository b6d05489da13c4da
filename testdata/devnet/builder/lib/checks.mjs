// End-of-build sanity checks. Each one fails the build loudly, and what it
// read is recorded in addresses.json ("checks") so verify-state.mjs can
// re-read the same values from the reloaded state and compare.
import { findPool, usdAmount as usdOf } from "./market.mjs";

export const QUOTE_USD = 10_000; // every pool is quoted both ways at this size
export const LARGE_QUOTE_USD = 1_000_000; // and the main pools at this one, to cross ticks
export const TWAP_WINDOW = 1800;
export const TWAP_POOLS = [["WETH", "USDC", 500], ["WETH", "USDC", 3000]];
const LARGE_POOLS = [["WETH", "USDC", 500], ["WETH", "USDC", 3000], ["WBTC", "WETH", 500]];

function fail(msg) {
  throw new Error(`check failed: ${msg}`);
}

// Same reads for build and verify: {kind: {key: value}} of strings.
export async function readChecks(chain, { v2, v3, aero, pools }) {
  const usdAmount = (s, usd) => usdOf(chain, s, usd);
  const out = { v3_quotes: {}, v2_pairs: {}, aerodrome_pools: {}, twap: {} };
  const large = new Set(LARGE_POOLS.map(([a, b, fee]) => findPool(pools, "v3", a, b, fee).name));

  for (const p of Object.values(pools.v3)) {
    const sizes = large.has(p.name) ? [QUOTE_USD, LARGE_QUOTE_USD] : [QUOTE_USD];
    const rows = [];
    for (const usd of sizes) {
      for (const [tin, tout] of [[p.token0, p.token1], [p.token1, p.token0]]) {
        const amountIn = usdAmount(tin, usd);
        let q;
        try {
          q = await v3.quoterV2.read("quoteExactInputSingle", {
            tokenIn: chain.addr(tin), tokenOut: chain.addr(tout), amountIn, fee: p.fee, sqrtPriceLimitX96: 0,
          });
        } catch (err) {
          fail(`QuoterV2 on ${p.name} ${tin}->${tout}: ${err.message}`);
        }
        if (q.amountOut === 0n) fail(`QuoterV2 on ${p.name} ${tin}->${tout} returned 0`);
        rows.push({
          token_in: tin, amount_in: amountIn.toString(), amount_out: q.amountOut.toString(),
          sqrt_price_x96_after: q.sqrtPriceX96After.toString(), initialized_ticks_crossed: Number(q.initializedTicksCrossed),
        });
      }
    }
    const s0 = await p.contract.read("slot0");
    out.v3_quotes[p.name] = {
      pool: p.address,
      sqrt_price_x96: s0.sqrtPriceX96.toString(),
      tick: Number(s0.tick),
      liquidity: (await p.contract.read("liquidity")).toString(),
      observation_cardinality: Number(s0.observationCardinality),
      quotes: rows,
    };
  }

  for (const p of Object.values(pools.v2)) {
    const r = await p.contract.read("getReserves");
    const rows = [];
    for (const [tin, tout] of [[p.token0, p.token1], [p.token1, p.token0]]) {
      const amountIn = usdAmount(tin, p.thin ? 100 : QUOTE_USD);
      const amounts = await v2.router.read("getAmountsOut", amountIn, [chain.addr(tin), chain.addr(tout)]);
      if (amounts[1] === 0n) fail(`Router02.getAmountsOut on ${p.name} ${tin}->${tout} returned 0`);
      rows.push({ token_in: tin, amount_in: amountIn.toString(), amount_out: amounts[1].toString() });
    }
    out.v2_pairs[p.name] = { pair: p.address, reserve0: r[0].toString(), reserve1: r[1].toString(), quotes: rows };
  }

  for (const p of Object.values(pools.aero)) {
    const r = await p.contract.read("getReserves");
    const rows = [];
    for (const tin of [p.token0, p.token1]) {
      const amountIn = usdAmount(tin, QUOTE_USD);
      const amountOut = await p.contract.read("getAmountOut", amountIn, chain.addr(tin));
      if (amountOut === 0n) fail(`Aerodrome getAmountOut on ${p.name} from ${tin} returned 0`);
      rows.push({ token_in: tin, amount_in: amountIn.toString(), amount_out: amountOut.toString() });
    }
    out.aerodrome_pools[p.name] = { pool: p.address, reserve0: r[0].toString(), reserve1: r[1].toString(), quotes: rows };
  }

  for (const [a, b, fee] of TWAP_POOLS) {
    const p = findPool(pools, "v3", a, b, fee);
    const name = p.name;
    let obs;
    try {
      obs = await p.contract.read("observe", [TWAP_WINDOW, 0]);
    } catch (err) {
      fail(`observe([${TWAP_WINDOW},0]) on ${name}: ${err.message}`);
    }
    const [c0, c1] = obs.tickCumulatives;
    const delta = c1 - c0;
    // Rounded toward -infinity, as OracleLibrary.consult does.
    let mean = delta / BigInt(TWAP_WINDOW);
    if (delta < 0n && delta % BigInt(TWAP_WINDOW) !== 0n) mean -= 1n;
    out.twap[name] = {
      pool: p.address,
      seconds_agos: [TWAP_WINDOW, 0],
      tick_cumulatives: [c0.toString(), c1.toString()],
      seconds_per_liquidity_cumulative_x128s: obs.secondsPerLiquidityCumulativeX128s.map(String),
      mean_tick: Number(mean),
    };
  }
  return out;
}

export async function collectChecks(chain, ctx) {
  const out = await readChecks(chain, ctx);
  // The 30-minute TWAP must differ from spot on the main pool (the trading
  // is skewed in the last half hour for exactly this).
  const mainName = findPool(ctx.pools, "v3", "WETH", "USDC", 500).name;
  for (const name of Object.keys(out.twap)) out.twap[name].spot_tick = out.v3_quotes[name].tick;
  if (out.twap[mainName].mean_tick === out.twap[mainName].spot_tick) fail(`${mainName} TWAP equals spot`);
  for (const name of Object.keys(out.twap)) {
    const crossed = Math.max(...out.v3_quotes[name].quotes.map((q) => q.initialized_ticks_crossed));
    if (crossed < 2) fail(`large trades on ${name} cross only ${crossed} initialized ticks`);
  }
  for (const p of Object.keys(out.v3_quotes)) {
    if (out.v3_quotes[p].observation_cardinality < 2) fail(`${p}: observation cardinality not raised`);
  }

  // Feeds against the DEX: each USD feed's last answer vs a price implied by
  // the main V3 pools (USDC taken as $1).
  const spot = ([a, b, fee], base) => {
    const pool = findPool(ctx.pools, "v3", a, b, fee);
    const q = out.v3_quotes[pool.name];
    const p = Number(BigInt(q.sqrt_price_x96)) / 2 ** 96;
    const t0PerT1 = p * p * 10 ** (chain.decimals[pool.token0] - chain.decimals[pool.token1]);
    return pool.token0 === base ? t0PerT1 : 1 / t0PerT1;
  };
  const eth = spot(["WETH", "USDC", 500], "WETH");
  const dex = {
    "ETH/USD": eth,
    "BTC/USD": spot(["WBTC", "USDC", 3000], "WBTC"),
    "USDC/USD": 1,
    "USDT/USD": spot(["USDC", "USDT", 100], "USDT"),
    "DAI/USD": spot(["DAI", "USDC", 100], "DAI"),
    "LINK/USD": spot(["LINK", "WETH", 3000], "LINK") * eth,
  };
  out.feed_vs_dex = {};
  for (const [pair, f] of Object.entries(ctx.feedRecords)) {
    const answer = Number(BigInt(f.rounds.at(-1).answer)) / 1e8;
    out.feed_vs_dex[pair] = {
      feed_answer: answer,
      dex_price: Number(dex[pair].toPrecision(8)),
      deviation_bps: Math.round(((answer - dex[pair]) / dex[pair]) * 10_000),
    };
  }

  // Feeds: latestRoundData agrees with the last getRoundData.
  for (const [pair, f] of Object.entries(ctx.feedRecords)) {
    const latest = await ctx.feeds.feeds[pair].read("latestRoundData");
    const last = f.rounds.at(-1);
    if (Number(latest.roundId) !== last.round_id || latest.answer.toString() !== last.answer || Number(latest.updatedAt) !== last.updated_at) {
      fail(`feed ${pair}: latestRoundData disagrees with getRoundData(${last.round_id})`);
    }
  }
  out.read_at_block = ctx.final.number;
  return out;
}
